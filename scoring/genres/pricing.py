"""What the tokens of a scoring run would cost on OpenAI's API: an estimate shown with its progress.

Prices are OpenAI's list prices in US dollars per million tokens (input, output) as published in
2025; they change, so the figure is an estimate. Models missing from the table, such as those
served by vLLM, Ollama or llama.cpp, are counted as free.
"""

PRICES_PER_MILLION_TOKENS = {
    "gpt-3.5-turbo-instruct": (1.50, 2.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "text-embedding-ada-002": (0.10, 0.0),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
}


def is_priced(model: str) -> bool:
    return model in PRICES_PER_MILLION_TOKENS


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int = 0) -> float:
    """Dollars for that many tokens sent to and received from ``model``; 0 for an unpriced model."""
    input_price, output_price = PRICES_PER_MILLION_TOKENS.get(model, (0.0, 0.0))
    return (prompt_tokens * input_price + completion_tokens * output_price) / 1_000_000
