"""The lab API and its machinery: Lab/Step (lab), discovery through entry points (registry), the runner, the
reference solution's install, the generated data (fixtures_io), the lab data files (data), grading orchestration
(grader) and the HTML report. Knows no lab by name."""
