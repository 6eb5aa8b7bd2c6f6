"""The paper's experiments, one module each, as the dashboard runs them."""
