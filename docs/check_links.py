"""Check relative links (Markdown and HTML href/src) in README.md and docs/*.md.

Run from the repository root: ``python3 docs/check_links.py``

For each link: the target file or folder must exist; an anchor (#...) must match a
heading of the target Markdown file (GitHub's slug rules, simplified).
"""

import re
import sys
import unicodedata
from pathlib import Path

MD_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
HTML_LINK = re.compile(r'(?:href|src)="([^"]+)"')
CODE_FENCE = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def slug(heading):
    h = heading.strip().lower()
    h = re.sub(r"[`*]", "", h)  # GitHub keeps underscores (bench_class.py)
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    out = []
    for ch in h:
        cat = unicodedata.category(ch)
        if ch in " -":
            out.append("-" if ch == " " else ch)
        elif cat[0] in "LN" or ch == "_":
            out.append(ch)
    return "".join(out)


def anchors(md):
    text = CODE_FENCE.sub("", md.read_text(encoding="utf-8"))
    seen, result = {}, set()
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.MULTILINE):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        result.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return result


def main(root):
    root = Path(root).resolve()
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    problems = checked = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        stripped = INLINE_CODE.sub("", CODE_FENCE.sub("", text))
        links = [a or b for a, b in MD_LINK.findall(stripped)] + HTML_LINK.findall(stripped)
        for link in links:
            if re.match(r"^[a-z]+:", link):  # http:, https:, mailto:
                continue
            checked += 1
            path, _, anchor = link.partition("#")
            target = (f.parent / path).resolve() if path else f
            if not target.exists():
                print(f"{f.relative_to(root)}: missing target {link}")
                problems += 1
                continue
            if anchor and target.suffix == ".md" and anchor not in anchors(target):
                print(f"{f.relative_to(root)}: no heading for #{anchor} in {target.relative_to(root)}")
                problems += 1
    print(f"{len(files)} files, {checked} relative links checked, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
