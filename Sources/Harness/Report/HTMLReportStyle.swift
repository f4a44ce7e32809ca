/// The HTML report's inline style sheet and its one script. Constants: nothing from a run
/// ever goes in here.
enum HTMLReportStyle {
    static let css = """
    :root{--pass:#1a7f37;--fail:#cf222e;--error:#bc4c00;--skipped:#6e7781;--line:#d0d7de;--bg:#f6f8fa}
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1400px;padding:16px 24px;color:#1f2328}
    h1{font-size:22px;margin:0 0 4px}h2{border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
    h4{margin:14px 0 6px}h5{margin:8px 0 4px;font-size:13px}
    nav{margin:8px 0 0}a{color:#0969da}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
    .muted{color:#656d76;font-weight:normal}
    table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
    thead th{background:var(--bg)}
    .badge{display:inline-block;border-radius:10px;padding:0 8px;color:#fff;font-size:12px;font-weight:600;text-transform:uppercase}
    .badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}.badge.error{background:var(--error)}.badge.crashed{background:var(--fail)}
    .badge.skipped,.badge.unsupported,.badge.not-applicable,.badge.not-evaluated{background:var(--skipped)}
    .pass-text{color:var(--pass)}.fail-text{color:var(--fail);font-weight:600}.error-text{color:var(--error);font-weight:600}
    .bar rect.pass{fill:var(--pass)}.bar rect.fail{fill:var(--fail)}.bar rect.error{fill:var(--error)}.bar rect.crashed{fill:#82071e}.bar rect.skipped{fill:var(--skipped)}
    dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dl.facts dt{color:#656d76}dl.facts dd{margin:0}
    .matrix td.cell{text-align:center}.matrix td.pass{background:#dafbe1}.matrix td.fail{background:#ffebe9}
    .matrix td.error{background:#fff1e5}.matrix td.crashed{background:#ffebe9}.matrix td.skipped,.matrix td.unsupported{background:#eaeef2}
    details.scenario{border:1px solid var(--line);border-left:6px solid var(--skipped);border-radius:6px;margin:8px 0;padding:4px 12px}
    details.scenario.pass{border-left-color:var(--pass)}details.scenario.fail{border-left-color:var(--fail)}
    details.scenario.error{border-left-color:var(--error)}details.scenario.crashed{border-left-color:var(--fail)}
    .about .title{margin:.3em 0 0}.about p{margin:.2em 0}
    details.scenario>summary{cursor:pointer;font-weight:600;padding:4px 0}.scenario-id{font-family:ui-monospace,monospace}
    p.reason{background:#fff8c5;padding:4px 8px;border-radius:4px}
    tr.verdict.fail td{background:#ffebe9}
    pre{background:var(--bg);padding:6px 8px;border-radius:4px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-all}
    pre.excerpt{max-height:160px;margin:4px 0}
    .diagram{overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
    svg.sequence{font:12px ui-monospace,monospace}
    svg.sequence .lane rect{fill:var(--bg);stroke:#8c959f}svg.sequence .lane line{stroke:#afb8c1;stroke-dasharray:4 4}
    svg.sequence .lane text{font-weight:600;font-family:system-ui,sans-serif}
    svg.sequence .head{fill:#57606a}svg.sequence line.request{stroke:#57606a;stroke-width:1.5}
    svg.sequence line.response{stroke:#8c959f;stroke-width:1.2;stroke-dasharray:6 4}
    svg.sequence text.status{fill:#57606a}svg.sequence text.noanswer{fill:var(--fail)}
    svg.sequence rect.hit{fill:transparent}svg.sequence a.step:hover rect.hit{fill:#ddf4ff}
    svg.sequence a.failing rect.hit{fill:#ffebe9}svg.sequence a.failing line{stroke:var(--fail);stroke-width:2.2}
    svg.sequence a.failing text.label{fill:var(--fail);font-weight:700}svg.sequence text.note{fill:var(--fail);font-weight:700}
    details.exchange{border:1px solid var(--line);border-radius:4px;margin:4px 0;padding:2px 8px}
    details.exchange>summary{cursor:pointer;font:12px ui-monospace,monospace;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
    details.exchange.failing{border:2px solid var(--fail);background:#fff5f5}
    details.exchange:target{box-shadow:0 0 0 3px #54aeff}
    .failing-mark{color:var(--fail);font-weight:700}.seq{font-weight:700}.mock{color:#8250df}
    .explanation{border-left:4px solid var(--fail);background:#ffebe9;padding:6px 10px;margin:6px 0}
    .halves{display:grid;grid-template-columns:1fr 1fr;gap:12px}.half{min-width:0}
    table.headers{font:12px ui-monospace,monospace;width:100%}table.headers th{white-space:nowrap;width:1%}
    table.headers td{word-break:break-all}
    details.message{margin:6px 0}details.message>summary{cursor:pointer;font-weight:600}
    .finding{color:var(--error)}
    @media (max-width:900px){.halves{grid-template-columns:1fr}}
    """

    /// Opens the `<details>` an anchor points at (and the scenario around it): a link from
    /// the diagram, the verdicts or the Markdown summary lands on an open exchange.
    static let script = """
    (function(){function o(){var h=location.hash.slice(1);if(!h)return;var e=document.getElementById(decodeURIComponent(h));
    while(e){if(e.tagName==='DETAILS')e.open=true;e=e.parentElement;}}window.addEventListener('hashchange',o);o();})();
    """
}
