"""Evaluation of the model as a product: validation splits, behaviours, evasions, chat."""
