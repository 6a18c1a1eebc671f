"""When pytest runs these notebooks (``pytest --nbval-lax notebooks``), their kernels get throwaway
IPython/Jupyter folders and giskard-nb home, so a test run never writes to the user's ``~``."""

import os
import tempfile

_tmp = tempfile.mkdtemp(prefix="giskard-nb-notebooks-")
for _var, _sub in (
    ("IPYTHONDIR", "ipython"),
    ("JUPYTER_CONFIG_DIR", "jupyter-config"),
    ("JUPYTER_DATA_DIR", "jupyter-data"),
    ("JUPYTER_RUNTIME_DIR", "jupyter-runtime"),
    ("GISKARD_NB_HOME", "giskard-nb-home"),
):
    os.environ[_var] = os.path.join(_tmp, _sub)
os.environ["MPLBACKEND"] = "agg"
for _var in ("GISKARD_NB_MODEL", "GISKARD_NB_EMBEDDING_MODEL", "GISKARD_NB_HUB_URL"):
    os.environ.pop(_var, None)
