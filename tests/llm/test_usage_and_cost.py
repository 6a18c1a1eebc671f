def test_model_prices_from_litellms_table():
    from giskard_nb.llm import model_prices

    prompt, completion = model_prices("openai/gpt-4o-mini")
    assert 0 < prompt < completion
    assert model_prices("no-such-provider/no-such-model") is None
