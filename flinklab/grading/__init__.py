"""The grader: parses saved outputs and plans, folds changelogs, compares with the reference. Never asks the cluster."""
