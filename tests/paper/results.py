#!/usr/bin/env python3
"""results.py -- tests/paper/RESULTS.md from the runs that printed its numbers.

    results.py --paper build/paper --study build/study --into tests/paper [--check]
    results.py --paper build/paper --into tests/paper --only tta
    results.py --accuracy build/bench-accuracy --into tests/paper --only accuracy
    results.py --study build/study --into tests/paper --only directions

Reads what `make paper` wrote: provenance.json (the commit, the machine),
ml-1m/ and ml-100k/ (summary.json, table1.md, best-*.dat, trace-*.csv,
Figure 1), tta-ml-1m/ (the time-to-accuracy run: tta-section.md,
provenance.json) and the studies (rates, selection, overparam: .json and
.md).  Copies the tables, figures and summaries into --into (never the
traces, never the ratings), then writes RESULTS.md there from its template
RESULTS.in.md:

  <!-- gen:NAME -->...<!-- /gen:NAME -->   a generated block (a table)
  <!--v:KEY-->...<!--/v-->                 a generated value in the prose
  <!-- time-to-accuracy: begin ... -->...<!-- time-to-accuracy: end -->
                                           the section `ircg paper --time-to`
                                           wrote as tta-section.md

An unknown NAME or KEY is an error, so no number can be left behind by a
typo.  --check also fails when a digit stands in the prose outside those
markers, code and links: every number of RESULTS.md comes from a run.
--only tta replaces the time-to-accuracy section of the RESULTS.md there is
(`make tta`), nothing else; --only accuracy the block gen:accuracy with
what `make bench-accuracy` wrote (accuracy.md, accuracy.json and its
provenance.json, copied into accuracy/ there), which a whole regeneration
takes from --accuracy when it holds a run and from that copy otherwise;
--only directions the table and values of the directions section (`study
directions`), and its study's copies.  --check-template FILE checks a template alone
(no digit typed in its prose, markers well formed, one time-to-accuracy
section): `make test` runs it on RESULTS.in.md, so a template that a
two-hour `make paper` would refuse at its end is refused at once.

The page belongs to the code that made it.  `--manifest` prints that
code as {path: git blob id} -- every .c and .h of solver/ and
tests/study/ and the paper runner (clients/cli/cmd_paper.c,
clients/cli/paper*) -- and provenance.sh records it in each run's
provenance.json ("code").  `--check-code DIR` compares the manifests of
DIR/provenance.json and DIR/tta-ml-1m/provenance.json with the files as
they are now and fails, naming every file added, removed or changed:
`make test` runs it on tests/paper, so a change to the solver or the
runner fails the suite until the page is made again.  The ids are of the
files' bytes (git's blob hash, computed here: no git needed), so the check
cannot drift -- a comparison of figures within a noise could -- and it
sees uncommitted changes too.  A provenance.json without "code" (made
before it was recorded) is read through git at its commit.
"""
import hashlib
import subprocess
import argparse
import json
import os
import re
import shutil
import sys

DATASETS = [("ml1m", "ml-1m"), ("ml100k", "ml-100k")]
IRCG = ["ircg-open", "ircg-closed", "ircg-ls"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def g3(x):
    return f"{x:.3g}"


def e2(x):
    return f"{x:.2e}"


def thousands(x):
    return f"{int(round(x)):,}"


def first_time_below(dat, level):
    """Seconds at which best-KEY.dat first shows g - g_opt <= level."""
    if not os.path.exists(dat):
        return None
    for line in read(dat).splitlines():
        if line.startswith("#") or not line.strip():
            continue
        t, gap, _ = (float(v) for v in line.split())
        if gap <= level:
            return t
    return None


def first_gap(trace):
    """g - g_opt after the first iteration, from trace-KEY.csv."""
    if not os.path.exists(trace):
        return None
    with open(trace, encoding="utf-8") as f:
        head = f.readline().strip().split(",")
        row = f.readline().strip().split(",")
    if len(row) < len(head):
        return None
    return float(row[head.index("g_gap_x")])


def dataset_values(v, ds, run_dir):
    s = load(os.path.join(run_dir, "summary.json"))
    g, u, inst = s["g_opt"], s["g_opt"]["uniqueness"], s["instance"]
    v[f"{ds}.rows"] = thousands(inst["n_rows"])
    v[f"{ds}.cols"] = thousands(inst["n_cols"])
    v[f"{ds}.ratings"] = thousands(inst["ratings"])
    v[f"{ds}.budget"] = g3(s["budget_seconds"])
    v[f"{ds}.delta"] = g3(s["delta"])
    v[f"{ds}.gopt"] = f"{g['value']:.17g}"
    v[f"{ds}.gap"] = f"{g['certified_gap']:.2g}"
    v[f"{ds}.floor"] = f"{g['gap_floor']:.2g}"
    v[f"{ds}.gopt_iters"] = str(g["iterations"])
    v[f"{ds}.gopt_seconds"] = f"{g['seconds']:.2g}"
    v[f"{ds}.sigma1"] = f"{u['sigma_1']:.6f}"
    v[f"{ds}.sigma2"] = f"{u['sigma_2']:.6f}"
    v[f"{ds}.ubound"] = f"{u['bound']:.2g}"
    v[f"{ds}.udist"] = f"{u['distance']:.2g}"
    v[f"{ds}.urounding"] = f"{u['rounding']:.2g}"
    v[f"{ds}.umargin"] = f"{u['margin']:.6f}"
    v[f"{ds}.unique"] = "certified" if u["certified"] == 1 else "NOT certified"
    v[f"{ds}.fstar"] = f"{u['f_at_the_solution']:.7f}"
    v[f"{ds}.f_gopt_iterate"] = f"{g['f_at_solution']:.7f}"
    methods = {m["key"]: m for m in s["methods"]}
    for key, m in methods.items():
        k = f"{ds}.{key}"
        v[f"{k}.iters"] = thousands(m["iterations"])
        v[f"{k}.best"] = e2(m["best_g_gap"])
        v[f"{k}.f"] = f"{m['f_at_best']:.6g}"
        t = first_time_below(os.path.join(run_dir, f"best-{key}.dat"), 1e-8)
        v[f"{k}.t1e8"] = "never" if t is None else f"{t:.3g} s"
    return s, methods


def agreement(ds, s, methods, run_dir):
    """The paper's conclusions, each tested on this run's summary."""
    best = {k: m["best_g_gap"] for k, m in methods.items()}
    order = sorted(best, key=best.get)
    rows = []

    def row(claim, ok, why):
        rows.append(f"| {claim} | {'**agrees**' if ok else '**disagrees**'}: {why} |")

    if all(k in best for k in IRCG):
        top = set(order[:3])
        row("The three IR-CG variants are best on the inner gap", top == set(IRCG),
            "the three smallest best g - g_opt are " + ", ".join(order[:3]))
    rivals = [k for k in ("irpg", "bisg", "cgbio") if k in best]
    if rivals:
        nxt = min(rivals, key=best.get)
        row("IR-PG comes next (of IR-PG, Bi-SG, CG-BiO)", nxt == "irpg",
            f"{nxt} has the smallest best gap of the three ({e2(best[nxt])})")
    if "cgbio" in best:
        g1 = first_gap(os.path.join(run_dir, "trace-cgbio.csv"))
        if g1:
            ratio = best["cgbio"] / g1
            row("CG-BiO barely moves from its warm start", ratio > 0.5,
                f"its best gap is {ratio:.3g} of its gap after one iteration")
    if "bisg" in best and all(k in best for k in IRCG):
        worst_ircg = max(best[k] for k in IRCG)
        row("Bi-SG is behind IR-CG", best["bisg"] > worst_ircg,
            f"Bi-SG {e2(best['bisg'])} against IR-CG's largest {e2(worst_ircg)}")
    uniq = s["g_opt"]["uniqueness"]["certified"] == 1
    row("The outer values follow the inner gaps", uniq,
        "the inner solution set is one point (certified), so f is fixed by it"
        if uniq else "uniqueness is not certified on this run")
    head = "| the paper says | here |\n| --- | --- |\n"
    return head + "\n".join(rows) + "\n"


def study_values(v, study):
    sel = load(os.path.join(study, "selection.json"))
    i = sel["instance"]
    v["sel.rows"], v["sel.cols"] = str(i["n_rows"]), str(i["n_cols"])
    v["sel.ratings"] = str(i["ratings"])
    v["sel.nuc"] = f"{i['nuclear_norm_of_fill']:.6g}"
    v["sel.delta"] = f"{i['delta']:.6g}"
    v["sel.fopt"] = f"{i['f_opt']:.6g}"
    v["sel.iters"] = thousands(sel["iterations"])
    runs = {r["method"]: r for r in sel["runs"]}
    ir, cg = runs["IR-CG, open loop"], runs["CG on g, open loop"]
    v["sel.ircg_f"] = f"{ir['f']:.6g}"
    v["sel.ircg_g"] = f"{ir['g']:.3g}"
    v["sel.cg_f"] = f"{cg['f']:.6g}"
    v["sel.cg_g"] = f"{cg['g']:.3g}"
    v["sel.cg_f_at"] = f"{cg.get('f_at_ircg_g', float('nan')):.6g}"
    v["sel.stated_seconds"] = f"{sel['stated_seconds']:g}"
    fc = [r for r in sel["stated"] if r["method"] == "FC-BiO" and r["outer_gap_rel"] == 1e-3][0]
    v["sel.fcbio_status"] = fc["status"]
    v["sel.fcbio_seconds"] = f"{fc['seconds']:.2g}"
    v["sel.fcbio_f"] = f"{fc['f']:.6g}"
    v["sel.fcbio_rel"] = f"{abs(fc['f'] - i['f_opt']) / i['f_opt']:.1e}"
    v["sel.fcbio_gap"] = f"{fc['outer_gap'] / i['f_opt']:.1e}"
    op = load(os.path.join(study, "overparam.json"))
    i = op["instance"]
    v["op.m"], v["op.n"] = str(i["training_rows"]), str(i["unknowns"])
    v["op.mv"] = str(i["validation_rows"])
    v["op.radius"] = f"{i['l1_radius']:.4g}"
    v["op.fopt"] = f"{i['f_opt']:.4g}"
    v["op.fpinv"] = f"{i['f_of_pinv']:.4g}"
    v["op.iters"] = thousands(op["iterations"])
    v["op.eps_g"] = f"{op['cgbio_eps_g']:g}"
    for r in op["runs"]:
        if r["method"] == "CG-BiO":
            v["op.cgbio_warmup"] = thousands(r["warmup_iterations"])
    rates = load(os.path.join(study, "rates.json"))
    v["rates.iters"] = thousands(rates["iterations"])
    qg, noqg = rates["instances"][0], rates["instances"][1]
    v["rates.n"] = str(qg["n"])
    v["rates.kappa"] = f"{qg['kappa']:.3g}"
    v["rates.violations"] = str(sum(r["violations"] for r in qg["runs"]))
    v["rates.lemma_f"] = f"{max(r['max_ratio_lemma_f'] for r in qg['runs']):.2f}"
    v["rates.noqg_slopes"] = ", ".join(f"{r['slope_g']:.2f}" for r in noqg["runs"])
    penalty_values(v, load(os.path.join(study, "scale.json")))
    varsigma_values(v, load(os.path.join(study, "varsigma.json")))
    directions_values(v, study)


def varsigma_values(v, vs):
    """The constant of the default (varsigma.json): the one chosen, the
    default the run had, and how each did."""
    rows = {r["varsigma_rel"]: r for r in vs["summary"]}
    chosen, before = vs["chosen"], 0.05
    v["varsigma.chosen"] = f"{chosen:g}"
    v["varsigma.default_run"] = f"{vs['default_now']:g}"
    v["varsigma.runs"] = str(vs["runs_per_value"])
    for key, val in (("chosen", chosen), ("before", before)):
        r = rows.get(val)
        v[f"varsigma.{key}_reached"] = str(r["reached"]) if r else "not run"
        v[f"varsigma.{key}_error"] = f"{r['geomean_error']:.3g}" if r else "not run"
        v[f"varsigma.{key}_error_sel"] = f"{r['geomean_error_selecting']:.3g}" if r else "not run"
    best_e = min(vs["summary"], key=lambda r: r["geomean_error"])
    v["varsigma.least_error_at"] = f"{best_e['varsigma_rel']:g}"
    v["varsigma.least_error"] = f"{best_e['geomean_error']:.3g}"
    v["varsigma.most_reached"] = str(max(r["reached"] for r in vs["summary"]))


def directions_values(v, study):
    """The values of the directions section (study directions)."""
    d = load(os.path.join(study, "directions.json"))
    v["dir.budget"] = g3(d["budget_seconds"])


def only_directions(study, into):
    """The directions section of the RESULTS.md there is, from a study
    directions run alone (its table and values; nothing else changes)."""
    path = os.path.join(into, "RESULTS.md")
    values, blocks = {}, {"directions": read(os.path.join(study, "directions.md"))}
    directions_values(values, study)
    text = read(path)

    def gen(m):
        return m.group(0) if m.group(2) not in blocks else \
            m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(4)

    def val(m):
        return m.group(0) if m.group(2) not in values else m.group(1) + values[m.group(2)] + m.group(4)

    if "<!-- gen:directions -->" not in text:
        sys.exit(f"results.py: {path} has no directions section (make it from RESULTS.in.md)")
    text = VAL.sub(val, GEN.sub(gen, text))
    sd = os.path.join(into, "studies")
    os.makedirs(sd, exist_ok=True)
    for f in ("directions.json", "directions.md"):
        shutil.copy(os.path.join(study, f), os.path.join(sd, f))
    write(path, text)
    check_typed(text)
    print(f"results.py: the directions section of {path}")


def penalty_values(v, scale):
    """The penalty path of breast-cancer at sigma = 1e-2 and 1e-3 times the
    default (scale.json's penalty_path): what the prose after the table
    says of it.  "not run" when the instance's data was absent."""
    fstar = next((r["f_star"] for r in scale.get("natural_scale", [])
                  if r["instance"] == "breast-cancer"), None)
    rows = {r["sigma_over_default"]: r for r in scale.get("penalty_path", [])}
    for k, m in (("2", 1e-2), ("3", 1e-3)):
        r = rows.get(m)
        if r is None or fstar is None or "path_f" not in r:
            for key in ("path_f", "cond", "held_f", "cont_f", "held_gap", "cont_gap"):
                v[f"scale.{key}_{k}"] = "not run"
            continue
        def pct(f):  # "59% above", "1% below": the direction is measured too
            p = 100 * abs(f - fstar) / abs(fstar)
            size = f"{p:.2g}%" if p < 10 else f"{p:.0f}%"
            return f"{size} {'above' if f > fstar else 'below'}"
        v[f"scale.path_f_{k}"] = pct(r["path_f"])
        v[f"scale.cond_{k}"] = f"{r['path_condition']:.1e}"
        v[f"scale.held_f_{k}"] = pct(r["held_f"])
        v[f"scale.cont_f_{k}"] = pct(r["continuation_f"])
        v[f"scale.held_gap_{k}"] = f"{r['held_inner_gap'] / r['g_x0']:.1e}"
        v[f"scale.cont_gap_{k}"] = f"{r['continuation_inner_gap'] / r['g_x0']:.1e}"


def copy_outputs(paper, study, into):
    for _, d in DATASETS:
        os.makedirs(os.path.join(into, d), exist_ok=True)
        for f in ("table1.md", "summary.json", "fig1.gp", "fig1.png", "fig1.svg"):
            src = os.path.join(paper, d, f)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(into, d, f))
    shutil.copy(os.path.join(paper, "provenance.json"), os.path.join(into, "provenance.json"))
    sd = os.path.join(into, "studies")
    os.makedirs(sd, exist_ok=True)
    for f in sorted(os.listdir(study)):
        if f.endswith((".json", ".md", ".gp", ".png", ".svg", ".dat")):
            shutil.copy(os.path.join(study, f), os.path.join(sd, f))


TTA_DIR = "tta-ml-1m"
TTA = re.compile(r"<!-- time-to-accuracy: begin.*?<!-- time-to-accuracy: end -->\n?", re.S)


def tta_section(paper):
    """The run's section, with the commit that made it."""
    run = os.path.join(paper, TTA_DIR)
    section = read(os.path.join(run, "tta-section.md"))
    prov = load(os.path.join(run, "provenance.json"))
    if not TTA.fullmatch(section):
        sys.exit(f"results.py: {run}/tta-section.md is not one time-to-accuracy section")
    commit = prov["commit"][:12] + (" (with uncommitted changes)" if prov["dirty"] else "")
    end = "<!-- time-to-accuracy: end -->"
    return section.replace(end, f"The run was made by commit {commit}.\n\n{end}")


def put_tta(text, section):
    if len(TTA.findall(text)) != 1:
        sys.exit("results.py: the page needs exactly one time-to-accuracy section")
    return TTA.sub(lambda _: section, text)


def copy_tta(paper, into):
    os.makedirs(os.path.join(into, TTA_DIR), exist_ok=True)
    for f in ("tta.md", "summary.json", "provenance.json"):
        shutil.copy(os.path.join(paper, TTA_DIR, f), os.path.join(into, TTA_DIR, f))


ACC_DIR = "accuracy"
ACC_FILES = ("accuracy.md", "accuracy.json", "provenance.json")


def accuracy_block(run):
    """The benchmark's tables with the commit that made them."""
    prov = load(os.path.join(run, "provenance.json"))
    commit = prov["commit"][:12] + (" (with uncommitted changes)" if prov["dirty"] else "")
    return (read(os.path.join(run, "accuracy.md")).rstrip("\n") +
            f"\n\nThe run was made by commit {commit} on {prov['date']}, "
            f"{prov['cores']} cores ({prov['cpu']}).\n")


def accuracy_run(accuracy, into):
    """Where the benchmark's outputs are: the run's folder when it holds
    one, else the copy beside the page."""
    if accuracy and all(os.path.exists(os.path.join(accuracy, f)) for f in ACC_FILES):
        return accuracy
    return os.path.join(into, ACC_DIR)


def copy_accuracy(run, into):
    dest = os.path.join(into, ACC_DIR)
    if os.path.abspath(run) == os.path.abspath(dest):
        return
    os.makedirs(dest, exist_ok=True)
    for f in ACC_FILES:
        shutil.copy(os.path.join(run, f), os.path.join(dest, f))


def put_block(text, name, block):
    pat = re.compile(r"(<!-- gen:%s -->\n)(.*?)(<!-- /gen:%s -->)" % (re.escape(name), re.escape(name)),
                     re.S)
    if len(pat.findall(text)) != 1:
        sys.exit(f"results.py: the page needs exactly one gen:{name} block")
    return pat.sub(lambda m: m.group(1) + block.rstrip("\n") + "\n" + m.group(3), text)


GEN = re.compile(r"(<!-- gen:([\w.-]+) -->\n)(.*?)(<!-- /gen:\2 -->)", re.S)
VAL = re.compile(r"(<!--v:([\w.-]+)-->)(.*?)(<!--/v-->)", re.S)


def fill(text, values, blocks):
    missing = []

    def gen(m):
        if m.group(2) not in blocks:
            missing.append("gen:" + m.group(2))
            return m.group(0)
        return m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(4)

    def val(m):
        if m.group(2) not in values:
            missing.append("v:" + m.group(2))
            return m.group(0)
        return m.group(1) + values[m.group(2)] + m.group(4)

    text = VAL.sub(val, GEN.sub(gen, text))
    return text, missing


# Names with digits that are not measurements.
NAMES = re.compile(r"ML-1M|ML-100K|MovieLens 1M|MovieLens 100K|Table 1|Figure 1|Section [45]|"
                   r"Example 1|issue \d+|\bl[12]\b|IRCG|RFC \d+|Jiang et al\. \d{4}")


def typed_numbers(text):
    """Digits in prose: outside markers, code, links and known names."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = TTA.sub("", text)
    text = GEN.sub("", text)
    text = VAL.sub("", text)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = NAMES.sub("", text)
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if re.search(r"\d", line):
            found.append(line.strip())
    return found


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def check_typed(text):
    typed = typed_numbers(text)
    if typed:
        print("results.py: numbers typed by hand in the prose:", file=sys.stderr)
        for t in typed:
            print("  " + t, file=sys.stderr)
        sys.exit(1)


def template_errors(text):
    """What is wrong with a template by itself (not its values)."""
    errors = [f"typed by hand: {t}" for t in typed_numbers(text)]
    opened = re.findall(r"<!-- gen:([\w.-]+) -->", text)
    closed = re.findall(r"<!-- /gen:([\w.-]+) -->", text)
    for name in sorted(set(opened) ^ set(closed)):
        errors.append(f"gen:{name} is not opened and closed once")
    if text.count("<!--v:") != text.count("<!--/v-->"):
        errors.append("a <!--v:KEY--> without its <!--/v--> (or the reverse)")
    if len(TTA.findall(text)) != 1:
        errors.append("not exactly one time-to-accuracy section")
    return errors


CODE_DIRS = ["solver", "tests/study"]
CODE_CLI = "clients/cli"


def is_code(path):
    """Whether a path (relative, '/'-separated) is part of what makes the
    page's numbers: the solver, the studies, the paper runner."""
    if not path.endswith((".c", ".h")):
        return False
    if any(path.startswith(d + "/") for d in CODE_DIRS):
        return True
    head, name = os.path.split(path)
    return head == CODE_CLI and (name.startswith("paper") or name.startswith("cmd_paper"))


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def manifest(root):
    """{path: blob id} of the code as the files under root hold it now."""
    out = {}
    for top in CODE_DIRS + [CODE_CLI]:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                if is_code(rel):
                    with open(os.path.join(root, rel), "rb") as fh:
                        out[rel] = blob_id(fh.read())
    return dict(sorted(out.items()))


def manifest_at(root, commit):
    """{path: blob id} of the code at a commit, through git; None if git
    cannot tell."""
    try:
        r = subprocess.run(["git", "-C", root, "ls-tree", "-r", commit, "--"] + CODE_DIRS +
                           [CODE_CLI], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    out = {}
    for line in r.stdout.splitlines():
        meta, path = line.split("\t", 1)
        if is_code(path):
            out[path] = meta.split()[2]
    return out


def check_code(root, into):
    """0 when every run of the page was made by the code there is now."""
    bad = 0
    now = manifest(root)
    for sub in ("", TTA_DIR, ACC_DIR):
        path = os.path.join(into, sub, "provenance.json")
        if not os.path.exists(path):
            continue
        prov = load(path)
        then = prov.get("code") or manifest_at(root, prov.get("commit", ""))
        if then is None:
            print(f"results.py: {path}: no code manifest, and git cannot read commit "
                  f"{prov.get('commit')}", file=sys.stderr)
            bad += 1
            continue
        changed = sorted(p for p in set(now) | set(then) if now.get(p) != then.get(p))
        if changed:
            bad += 1
            print(f"results.py: {path}: made by commit {prov.get('commit', '?')[:12]}; since "
                  f"then {len(changed)} file(s) of the solver or the paper runner changed -- "
                  f"run make paper again (make tta for {TTA_DIR}, make bench-accuracy for "
                  f"{ACC_DIR}):", file=sys.stderr)
            for p in changed:
                what = "added" if p not in then else "removed" if p not in now else "changed"
                print(f"  {what}: {p}", file=sys.stderr)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paper", default="build/paper")
    ap.add_argument("--study", default="build/study")
    ap.add_argument("--into", default="tests/paper")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--accuracy", default="build/bench-accuracy")
    ap.add_argument("--only", choices=["tta", "accuracy", "directions"])
    ap.add_argument("--check-template", metavar="FILE")
    ap.add_argument("--manifest", action="store_true")
    ap.add_argument("--check-code", metavar="DIR")
    a = ap.parse_args()
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if a.manifest:
        print(json.dumps(manifest(root), indent=1))
        return
    if a.check_code:
        sys.exit(check_code(root, a.check_code))
    if a.check_template:
        errors = template_errors(read(a.check_template))
        for e in errors:
            print(f"results.py: {a.check_template}: {e}", file=sys.stderr)
        sys.exit(1 if errors else 0)
    path = os.path.join(a.into, "RESULTS.md")
    if a.only == "directions":
        only_directions(a.study, a.into)
        return
    if a.only == "tta":
        copy_tta(a.paper, a.into)
        write(path, put_tta(read(path), tta_section(a.paper)))
        print(f"results.py: the time-to-accuracy section of {path}")
        return
    if a.only == "accuracy":
        run = accuracy_run(a.accuracy, a.into)
        copy_accuracy(run, a.into)
        write(path, put_block(read(path), "accuracy", accuracy_block(run)))
        print(f"results.py: the accuracy block of {path}")
        return
    values, blocks = {}, {}
    prov = load(os.path.join(a.paper, "provenance.json"))
    values["commit"] = prov["commit"][:12] + (" (with uncommitted changes)" if prov["dirty"] else "")
    values["date"] = prov["date"]
    values["cpu"] = f"{prov['cores']} cores ({prov['cpu']})"
    values["compiler"] = prov["compiler"]
    values["openblas"] = prov["openblas"]
    for ds, d in DATASETS:
        run_dir = os.path.join(a.paper, d)
        s, methods = dataset_values(values, ds, run_dir)
        blocks[f"table1-{ds}"] = read(os.path.join(run_dir, "table1.md"))
        blocks[f"agreement-{ds}"] = agreement(ds, s, methods, run_dir)
    study_values(values, a.study)
    for name in ("rates", "selection", "overparam", "scale", "varsigma", "directions"):
        blocks[name] = read(os.path.join(a.study, name + ".md"))
    acc = accuracy_run(a.accuracy, a.into)
    blocks["accuracy"] = accuracy_block(acc)
    template = read(os.path.join(a.into, "RESULTS.in.md"))
    if a.check:  # the template's prose, before any value is in it
        check_typed(template)
    text, missing = fill(template, values, blocks)
    if missing:
        sys.exit("results.py: unknown markers: " + ", ".join(missing))
    text = put_tta(text, tta_section(a.paper))
    copy_outputs(a.paper, a.study, a.into)
    copy_tta(a.paper, a.into)
    copy_accuracy(acc, a.into)
    write(path, text)
    print(f"results.py: {path} from commit {values['commit']}")
    if a.check:
        check_typed(text)


if __name__ == "__main__":
    main()
