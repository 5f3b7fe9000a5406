"""Three judgements whose single-pass Elo is played out by hand (the compute_ratings and leaderboard tests)."""

# Three battles in this order: alpha beats beta, gamma beats beta, alpha and gamma tie.
JUDGEMENTS = (
    "text,system_a,system_b,aspect,annotator,winner\n"
    "toy-1,alpha,beta,ts,carol,a\n"
    "toy-1,beta,gamma,ts,carol,b\n"
    "toy-1,alpha,gamma,ts,carol,tie\n"
)


def played_by_hand(k):
    """The same three battles played out with the Elo formula, step by step."""
    rating = {"alpha": 1000.0, "beta": 1000.0, "gamma": 1000.0}
    for first, second, score in (("alpha", "beta", 1.0), ("beta", "gamma", 0.0), ("alpha", "gamma", 0.5)):
        expected = 1 / (1 + 10 ** ((rating[second] - rating[first]) / 400))
        rating[first] += k * (score - expected)
        rating[second] -= k * (score - expected)
    return rating
