(function () {
  // Filters of a standalone report: the page holds every case, this shows the matching ones.
  var form = document.getElementById("filters");
  if (!form || form.dataset.live === "1") return;
  var items = document.querySelectorAll("[data-filter-item]");
  function apply() {
    var q = (form.elements.q.value || "").toLowerCase(), shown = 0;
    var want = {};
    ["status", "category", "evidence"].forEach(function (name) {
      if (form.elements[name]) want[name] = form.elements[name].value;
    });
    items.forEach(function (el) {
      var ok = !q || el.textContent.toLowerCase().indexOf(q) >= 0;
      Object.keys(want).forEach(function (name) {
        if (want[name] && el.getAttribute("data-" + name) !== want[name]) ok = false;
      });
      el.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById("shown").textContent = String(shown);
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
})();
