#!/usr/bin/env python3
"""samlharness(1) from the binary's own help (ArgumentParser's --experimental-dump-help), so the
man page says exactly what --help says. Used by scripts/package.sh.

    python3 scripts/lib/manpage.py BINARY VERSION DATE > samlharness.1
"""
import json
import subprocess
import sys


def roff(text):
    """Plain text → roff body text: escapes, and no line starting with a control character."""
    out = []
    for line in text.replace("\\", "\\e").splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def flag_names(arg):
    names = []
    for n in arg.get("names", []):
        names.append(("-" if n["kind"] == "short" else "--") + n["name"])
    return names


def synopsis_of(arg):
    kind = arg["kind"]
    value = arg.get("valueName", "value")
    if kind == "positional":
        text = f"<{value}>" + ("..." if arg.get("isRepeating") else "")
    else:
        name = flag_names(arg)[0] if arg.get("names") else "--" + value
        pref = arg.get("preferredName")
        if pref:
            name = ("-" if pref["kind"] == "short" else "--") + pref["name"]
        text = name if kind == "flag" else f"{name} <{value}>"
    return f"[{text}]" if arg.get("isOptional") else text


def options(args):
    lines = []
    for arg in args:
        if not arg.get("shouldDisplay", True):
            continue
        if arg["kind"] == "positional":
            head = f"\\fI<{arg.get('valueName', 'value')}>\\fR"
        else:
            names = ", ".join(f"\\fB{n}\\fR" for n in flag_names(arg))
            head = names + ("" if arg["kind"] == "flag" else f" \\fI<{arg.get('valueName', 'value')}>\\fR")
        lines.append(".TP")
        lines.append(head)
        body = arg.get("abstract", "")
        if arg.get("discussion"):
            d = arg["discussion"]
            body += "\n" + (d if isinstance(d, str) else ", ".join(
                f"{v.get('value')}: {v.get('description', '')}" for v in d.get("values", [])) if isinstance(d, dict) else "")
        if arg.get("defaultValue") not in (None, ""):
            body += f" (default: {arg['defaultValue']})"
        lines.append(roff(body.strip()) or "\\&")
    return lines


def command_section(cmd, parents):
    name = " ".join(parents + [cmd["commandName"]])
    lines = [f'.SS "{name}"']
    if cmd.get("abstract"):
        lines.append(roff(cmd["abstract"]))
    usage = " ".join(synopsis_of(a) for a in cmd.get("arguments", []) if a.get("shouldDisplay", True))
    lines += [".PP", ".nf", f"\\fB{name}\\fR {roff(usage)}", ".fi"]
    if cmd.get("discussion"):
        lines += [".PP", roff(cmd["discussion"])]
    opts = options(cmd.get("arguments", []))
    if opts:
        lines += [".PP", "Options:", ".RS"] + opts + [".RE"]
    for sub in cmd.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            lines += command_section(sub, parents + [cmd["commandName"]])
    return lines


def main():
    binary, version, date = sys.argv[1:4]
    tool = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True,
                                     capture_output=True, text=True).stdout)["command"]
    subs = [s for s in tool.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    lines = [
        f'.TH SAMLHARNESS 1 "{date}" "samlharness {version}" "User Commands"',
        ".SH NAME",
        "samlharness \\- " + roff(tool.get("abstract", "")),
        ".SH SYNOPSIS",
        ".nf",
        "\\fBsamlharness\\fR \\fIcommand\\fR [\\fIoptions\\fR]",
        "\\fBsamlharness\\fR \\fB\\-\\-version\\fR",
        ".fi",
        ".SH DESCRIPTION",
        roff(tool.get("discussion", "")),
        ".PP",
        "Commands: " + ", ".join(f"\\fB{s['commandName']}\\fR" for s in subs) + ".",
        ".SH COMMANDS",
    ]
    for sub in subs:
        lines += command_section(sub, ["samlharness"])
    lines += [
        ".SH ENVIRONMENT",
        ".TP", "\\fBSAMLH_HOME\\fR",
        "A directory holding \\fIMockIdP/\\fR and \\fIScenarios/\\fR, used instead of the installed ones.",
        ".TP", "\\fBSAMLH_MOCKIDP_DIR\\fR, \\fBSAMLH_SCENARIOS_DIR\\fR",
        "The profiles' and the catalog's directories, one at a time.",
        ".TP", "\\fBSAMLH_TLS_DIR\\fR",
        "The local CA and server certificate of the https scenarios (setup-tls.sh).",
        ".SH FILES",
        ".TP", "\\fI/usr/share/samlharness\\fR",
        "MockIdP/ (profiles and keys), Scenarios/ (the catalog), docs/, build-info (the commit).",
        ".TP", "\\fI/usr/lib/samlharness\\fR",
        "The executables and their resource bundles.",
        ".SH SEE ALSO",
        "/usr/share/samlharness/docs/cli.md, /usr/share/samlharness/docs/install.md",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
