"""Case lists for scripts/make_dist_fixtures.py, one module per group of distributions."""
