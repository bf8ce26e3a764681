#!/usr/bin/env python3
"""Converts a man page written in a small Markdown subset (docs/man/*.md) to roff (man(7)).

    scripts/md2man.py PAGE.1.md OUT.1 VERSION

The subset: a title line "# name(section) -- summary"; "## SECTION" headings; paragraphs;
"* term:" items with an indented description (a tagged paragraph); ``` blocks (shown as is);
inline `code` (bold), *word* (italic), **word** (bold). Anything else is an error, named with
its line, so a page cannot silently render wrong.
"""
import re
import sys
from datetime import datetime, timezone
import os


def escape(text):
    text = text.replace("\\", "\\e")
    return text.replace("-", "\\-")


def inline(text):
    out = []
    for part in re.split(r"(`[^`]*`|\*\*[^*]+\*\*|\*[^*]+\*)", text):
        if not part:
            continue
        if part.startswith("`"):
            out.append("\\fB" + escape(part[1:-1]) + "\\fR")
        elif part.startswith("**"):
            out.append("\\fB" + escape(part[2:-2]) + "\\fR")
        elif part.startswith("*") and len(part) > 2:
            out.append("\\fI" + escape(part[1:-1]) + "\\fR")
        else:
            out.append(escape(part))
    line = "".join(out)
    # A line starting with . or ' would be a roff request.
    return "\\&" + line if line[:1] in (".", "'") else line


def convert(lines, version, path):
    out = []
    m = re.fullmatch(r"# (\S+)\((\d)\) -- (.+)", lines[0].rstrip("\n")) if lines else None
    if not m:
        sys.exit(f"{path}:1: the first line must be '# name(section) -- summary'")
    name, section, summary = m.groups()
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    date = datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%d") if epoch else ""
    out.append(f'.TH "{name.upper()}" "{section}" "{date}" "shmem {version}" "shmem manual"')
    out += [".SH NAME", f"{escape(name)} \\- {inline(summary)}"]
    in_code = False
    para = []

    def flush():
        if para:
            out.append(inline(" ".join(para)))
            para.clear()

    for no, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip("\n")
        if in_code:
            if line.strip() == "```":
                out += [".fi", ".RE"]
                in_code = False
            else:
                out.append("\\&" + escape(line))
            continue
        if line.strip() == "```":
            flush()
            out += [".PP", ".RS 4", ".nf"]
            in_code = True
        elif line.startswith("## "):
            flush()
            out.append(".SH " + line[3:].strip().upper())
        elif line.startswith("* "):
            flush()
            term = line[2:].rstrip()
            if not term.endswith(":"):
                sys.exit(f"{path}:{no}: an item is '* term:' followed by an indented description")
            out += [".TP", inline(term[:-1])]
        elif line.startswith("  ") and line.strip():
            para.append(line.strip())
        elif not line.strip():
            flush()
            if out[-1] not in (".PP",) and not out[-1].startswith((".SH", ".TP")):
                out.append(".PP")
        elif line.startswith("#"):
            sys.exit(f"{path}:{no}: only '## SECTION' headings after the title")
        else:
            para.append(line.strip())
    if in_code:
        sys.exit(f"{path}: a ``` block is not closed")
    flush()
    while out[-1] == ".PP":
        out.pop()
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: md2man.py PAGE.md OUT VERSION")
    src, dst, version = sys.argv[1:]
    with open(src, encoding="utf-8") as f:
        text = convert(f.readlines(), version, src)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
