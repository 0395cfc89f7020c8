"""`flinklab new-course DIR --lab LAB`: a learner's starting repository and the teacher's notes.

The repository holds the lab's step files (empty but for a comment naming the step), its guide, a `.gitignore`
and a CI workflow (GitHub Actions syntax; the same commands run in any CI) that runs the grader image on every
push, under `--network none`, in Gradescope's layout, and prints the points with each failed check's hint.
TEACHER.md says how to build and publish the image and how to grade on each platform.
"""

from __future__ import annotations

from pathlib import Path

from flinklab.errors import UsageError
from flinklab.lab_api import Lab

WORKFLOW = ".github/workflows/grade.yml"

_WORKFLOW = """\
# Grades this repository's SQL with the flinklab grader image on every push (no network inside the container).
name: grade
on: [push, workflow_dispatch]
jobs:
  grade:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    env:
      GRADER_IMAGE: {image}
      FLINKLAB_LAB: {lab}
    steps:
      - uses: actions/checkout@v4
      - name: Run the grader
        run: |
          mkdir -p results && chmod 777 results
          docker run --rm --network none --user root \\
            -v "$PWD:/autograder/submission:ro" -v "$PWD/results:/autograder/results" \\
            -e FLINKLAB_LAB="$FLINKLAB_LAB" --entrypoint /autograder/run_autograder "$GRADER_IMAGE"
      - name: Points
        run: |
          python3 - <<'EOF'
          import json
          data = json.load(open("results/results.json"))
          print(data["output"])
          for test in data["tests"]:
              if test.get("status") == "failed":
                  print("FAIL", test["name"])
                  print("    " + test["output"].replace("\\n", "\\n    "))
          print(f"points: {{data['score']:g}}/{{sum(t['max_score'] for t in data['tests']):g}}")
          EOF
"""

_README = """\
# {title}

Your work for the **{lab}** lab of a Flink SQL course. Write your SQL in the files of this repository:

{steps}

Each step runs as `sql-client.sh -i {init} -f STEP.sql > STEP.out 2>&1`: what several steps share (tables, views)
belongs in `{init}`. Read GUIDE.md for what each step asks.

Try your work on your machine (`pip install flinklab`, then `flink-up`):

    flinklab run {lab} --workspace ..      # if this folder is named {lab}; or copy the files to ~/flink/{lab}
    flinklab check {lab} --workspace ..

Every push is graded: the grader reruns your SQL (never your .out files) and prints the points and a hint for
each check that fails (the "grade" workflow in the Actions tab).
"""

_TEACHER = """\
# Teacher's notes: the {lab} lab

This folder is the learners' starting repository (use it as a template repository, or copy it into each
learner's). The grader reruns a learner's SQL in a sealed container and answers in the format your platform reads;
see flinklab's docs/teaching.md for the whole story.

1. Build the grader image (offline, on a machine with Docker and flinklab):

       flinklab image build-grader --labs {lab} --tag {image}
       docker push {image}

   `{workflow}` runs that image: change `GRADER_IMAGE` there if you use another tag.
2. Grade where your course lives:
   - **CI of the learner's repository** (this template): every push runs `{workflow}`.
   - **Gradescope**: a "manual Docker configuration" assignment with image `{image}`; put a file `lab` holding
     `{lab}` in the autograder's source (or set `FLINKLAB_LAB={lab}`).
   - **PrairieLearn**: an externally graded question with `"image": "{image}"`, `"entrypoint":
     "/usr/local/bin/flinklab-grade"`, and `"lab": "{lab}"` in the question's params.
   - **CodeGrade / by hand**: `flinklab grade {lab} SUBMISSION --format codegrade` (last line: the score in [0, 1]).
3. See what the class struggles with: collect the results files and run
   `flinklab class-report results/*/results.json --html class.html --csv class.csv`.

The learners' files: {files}.
"""


def write_course(directory: Path, lab: Lab, image: str | None = None) -> list[Path]:
    """Write the course into `directory` (new or empty); return the files written. UsageError when it holds files."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"{directory} exists and is not an empty directory.", "Give a new directory.")
    image = image or f"ghcr.io/YOUR-ORG/flinklab-grader:{lab.name}"
    steps_md = "\n".join(f"- `{s.sql_file}`: {s.title}" for s in lab.steps)
    files: dict[str, str] = {
        lab.init_file: f"-- {lab.name}: the tables every step uses (run with -i before each step).\n",
        **{s.sql_file: f"-- {lab.name}, step {s.id}: {s.title}\n" for s in lab.steps},
        "README.md": _README.format(title=lab.title, lab=lab.name, steps=steps_md, init=lab.init_file),
        "TEACHER.md": _TEACHER.format(lab=lab.name, image=image, workflow=WORKFLOW,
                                      files=", ".join(lab.solution_files)),
        WORKFLOW: _WORKFLOW.format(image=image, lab=lab.name),
        ".gitignore": "results/\n*.out\n*-plan.json\nreport.json\n",
    }
    guide = _guide(lab)
    if guide:
        files["GUIDE.md"] = guide
    written = []
    try:
        for name, text in files.items():
            path = directory / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as exc:
        raise UsageError(f"Cannot write {directory}: {exc.strerror or exc}.", "Choose a writable place.") from None
    return written


def _guide(lab: Lab) -> str:
    if not lab.guide_file:
        return ""
    try:
        return (lab.root / lab.guide_file).read_text(encoding="utf-8")
    except OSError:
        return ""
