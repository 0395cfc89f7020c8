"""The course: what flinklab knows about labs in general, below the use cases and above the lab API. Discovery
through entry points (registry), the lab texts' paths on this machine (textpaths), a lab's guide (guide) and the
HTML report of a grading (html_report). Knows no lab by name; the lab contract itself is flinklab.lab_api."""
