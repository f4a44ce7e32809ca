/// The live console's page (docs/devices.md, "The live console"; served by ``ConsoleServer``
/// at `GET /`): one self-contained HTML document — inline CSS and vanilla JavaScript, nothing
/// loaded from elsewhere — that follows `GET events` (Server-Sent Events: `hello`, `exchange`,
/// `verdicts`, `state`) and drives the control API through `api/…` (knobs, clock, profile, reset).
///
/// It lists each exchange as it arrives (newest at the bottom, following unless scrolled up;
/// at most 2,000 kept), opens one into its headers, cookies sent and set, bodies, annotations
/// and decoded SAML/SOAP/CAS messages (with the findings of a message damaged on the way), and,
/// with a scenario, shows the checks turning from pending to pass or fail, each evidence linked
/// to its exchange. Everything from the server is inserted as text (`textContent`, attribute
/// setters, or escaped for the XML colouring): the traffic carries attacker-controlled markup.
///
/// Hooks for browser tests: `#status` (`live` while the stream is open),
/// `div.exchange[data-seq][data-mock][data-method]` with `.details` when open,
/// `div.message[data-name]` with `pre.xml`, `div.verdict[data-check][data-status]`,
/// `#verdicts-final` (shown once the final verdicts came), `#knobs`, `#exchange-count`,
/// `#expand-all`, `#notice` (what the session judges, when that needs saying: ``page(judging:notice:)``).
enum ConsolePage {
    /// The page for one session. Without a scenario nothing is judged: the page offers no
    /// `report.html` or `verdicts.json` (they would answer 404). `notice`, plain text with
    /// `code` in backticks, is shown under the session line.
    static func page(judging: Bool, notice: String?) -> String {
        var page = html
        if !judging, let start = page.range(of: "<!--judged-->"), let end = page.range(of: "<!--/judged-->") {
            page.removeSubrange(start.lowerBound..<end.upperBound)
        }
        let box = notice.map { text in
            let parts = text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, part in
                index % 2 == 1 ? "<code>\(escaped(String(part)))</code>" : escaped(String(part))
            }
            return #"<p id="notice" class="notice" role="note">"# + parts.joined() + "</p>"
        }
        return page.replacingOccurrences(of: "<!--notice-->", with: box ?? "")
    }

    /// `text` safe inside an HTML element.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let html: String = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <link rel="icon" href="data:,">
    <title>SAMLHarness live console</title>
    <style>
    :root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--warnbg:#fff8c5;--muted:#656d76;--line:#d0d7de;--soft:#eaeef2;--bg:#f6f8fa;--link:#0969da;--fg:#1f2328}
    *{box-sizing:border-box}
    [hidden]{display:none !important}
    html,body{height:100%}
    body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:#fff;display:flex;flex-direction:column}
    code,pre,kbd,.mono,table.kv{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12px}
    a{color:var(--link)}
    button,select,input{font:inherit;font-size:13px}
    button{cursor:pointer;border:1px solid var(--line);background:#fff;border-radius:6px;padding:2px 10px;color:var(--fg)}
    button:hover{background:var(--bg)}
    button:focus-visible,select:focus-visible,input:focus-visible,.summary:focus-visible,a:focus-visible{outline:2px solid var(--link);outline-offset:1px}
    button.danger{border-color:#ff8182;color:#a40e26}
    button.danger:hover{background:#ffebe9}
    fieldset{border:0;margin:0;padding:0;min-width:0}
    fieldset:disabled{opacity:.6}
    .muted{color:var(--muted)}
    .small{font-size:12px}
    header{padding:8px 16px 6px;border-bottom:1px solid var(--line);background:var(--bg);flex:none}
    .title-line{display:flex;flex-wrap:wrap;align-items:center;gap:6px 14px}
    h1{font-size:17px;margin:0}
    h2{font-size:15px;margin:0}
    h3{font-size:13px;margin:14px 0 4px;color:#424a53;text-transform:uppercase;letter-spacing:.03em}
    h4{font-size:13px;margin:10px 0 4px}
    h5{font-size:13px;margin:2px 0 4px}
    .status{border-radius:10px;padding:1px 10px;font-weight:700;font-size:12px;color:#fff;background:var(--muted)}
    .status.live{background:var(--pass)}
    .status.connecting,.status.reconnecting{background:var(--warn)}
    .status.down{background:var(--fail)}
    .status.ended{background:#424a53}
    .downloads{margin-left:auto;display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center}
    .session-line{margin-top:4px;display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline}
    .scenario-id{font-size:13px;font-weight:700}
    .tag{display:inline-block;border-radius:8px;padding:0 7px;background:var(--soft);font-size:12px}
    .tag.expect-success{background:#dafbe1;color:#116329}
    .tag.expect-failure{background:#fff1e5;color:#953800}
    .start{margin-top:4px;word-break:break-all}
    .start code{font-size:13px}
    .reach{margin-top:4px;font-size:13px}
    .reach.network{background:#ffebe9;border:2px solid var(--fail);color:#82071e;font-weight:700;padding:4px 10px;border-radius:6px}
    .reach.loopback{color:var(--muted)}
    .notice{margin:6px 0 0;padding:6px 10px;background:var(--warnbg);border:1px solid #d4a72c;border-radius:6px;font-size:13px}
    details.endpoints{margin-top:4px;font-size:13px}
    details.endpoints>summary{cursor:pointer;color:var(--link)}
    .layout{flex:1;min-height:0;display:grid;grid-template-columns:minmax(0,1fr) 420px}
    main{display:flex;flex-direction:column;min-height:0;min-width:0;border-right:1px solid var(--line)}
    aside{overflow:auto;padding:8px 14px 24px;min-width:0}
    .toolbar{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;padding:6px 12px;border-bottom:1px solid var(--line);flex:none}
    .toolbar input[type=search]{flex:1;min-width:12em;max-width:26em;padding:2px 6px;border:1px solid var(--line);border-radius:6px}
    .count{display:inline-block;min-width:1.6em;text-align:center;border-radius:10px;background:var(--soft);padding:0 6px;font-size:12px}
    .note{padding:4px 12px;background:var(--warnbg);font-size:12px;border-bottom:1px solid var(--line);flex:none}
    .cols,.summary{display:flex;align-items:baseline;gap:8px;padding:2px 8px 2px 6px;white-space:nowrap;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;line-height:1.6}
    .cols{color:var(--muted);border-bottom:1px solid var(--line);border-left:4px solid transparent;flex:none;background:#fff}
    #exchanges{flex:1;overflow:auto;min-height:0;position:relative}
    .empty-list{padding:16px;color:var(--muted)}
    .c-seq{width:3.6em;flex:none;text-align:right;font-weight:700}
    .c-mock{width:5.4em;flex:none}
    .c-method{width:4.4em;flex:none;font-weight:600;overflow:hidden;text-overflow:ellipsis}
    .c-path{flex:1;min-width:4em;overflow:hidden;text-overflow:ellipsis}
    .c-chips{flex:none;display:inline-flex;gap:4px;max-width:40%;overflow:hidden}
    .c-status{flex:none;min-width:3.2em;max-width:26em;overflow:hidden;text-overflow:ellipsis;font-weight:700}
    .c-time{width:5.2em;flex:none;text-align:right;color:var(--muted)}
    .exchange{border-bottom:1px solid var(--soft);border-left:4px solid var(--mc)}
    .exchange>.summary{cursor:pointer}
    .exchange>.summary:hover{background:#f3f8ff}
    .exchange.open>.summary{background:#ddf4ff}
    .exchange.target{outline:3px solid #54aeff;outline-offset:-3px}
    .exchange.problem>.summary .c-path{color:#82071e}
    .mock-badge{display:inline-block;padding:0 6px;border-radius:8px;background:var(--mb);color:var(--mc);font-weight:700}
    .m-idp{--mc:#0550ae;--mb:#ddf4ff}
    .m-sp{--mc:#116329;--mb:#dafbe1}
    .m-auth{--mc:#953800;--mb:#fff1e5}
    .m-proxy{--mc:#6e40c9;--mb:#fbefff}
    .m-cas{--mc:#0b6e78;--mb:#d6f5f7}
    .m-adfs{--mc:#7d4e00;--mb:#fff8c5}
    .m-cm{--mc:#8c2f6b;--mb:#ffeff7}
    .m-control{--mc:#424a53;--mb:#eaeef2}
    .m-other{--mc:#24292f;--mb:#eaeef2}
    .chip{display:inline-block;border-radius:8px;padding:0 6px;background:var(--soft);font-size:11px;max-width:22em;overflow:hidden;text-overflow:ellipsis}
    .chip.warn{background:var(--warnbg);color:#7d4e00;font-weight:700}
    .chip.bad{background:#ffebe9;color:#a40e26;font-weight:700}
    .st-2{color:var(--pass)}
    .st-3{color:#0550ae}
    .st-1{color:var(--muted)}
    .st-4{color:#bc4c00}
    .st-5{color:var(--fail)}
    .st-none{color:var(--fail)}
    .st-tls{color:#a40e26}
    #new-below{position:sticky;bottom:8px;margin:0 auto;display:block;background:var(--link);color:#fff;border-color:var(--link);box-shadow:0 1px 4px rgba(0,0,0,.25)}
    .details{padding:6px 12px 12px 14px;border-top:1px dashed var(--line);font-size:13px;background:#fff;white-space:normal;cursor:auto}
    .details .overview{word-break:break-all}
    .halves{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:14px}
    .half{min-width:0}
    table.kv{border-collapse:collapse;width:100%;margin:2px 0 6px}
    table.kv th,table.kv td{border:1px solid var(--line);padding:2px 6px;text-align:left;vertical-align:top}
    table.kv th{white-space:nowrap;width:1%;background:var(--bg);font-weight:600}
    table.kv td{word-break:break-all}
    table.kv thead th{width:auto}
    pre{background:var(--bg);padding:6px 8px;border-radius:4px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-all;margin:4px 0;line-height:1.4}
    pre.excerpt{max-height:160px}
    pre.xml.none{color:var(--muted);font-style:italic}
    .message{border:1px solid var(--line);border-radius:6px;padding:4px 10px 6px;margin:6px 0}
    .message.damaged{border-left:5px solid #d4a72c}
    .message.failed{border-left:5px solid var(--fail)}
    .message h5 button{margin-left:8px;font-size:11px;padding:0 6px}
    .damaged-box{background:var(--warnbg);border-left:4px solid #d4a72c;padding:4px 10px;margin:4px 0}
    .damaged-box ul{margin:2px 0;padding-left:20px}
    .finding code{font-weight:700;color:#7d4e00}
    .decode-error{background:#ffebe9;border-left:4px solid var(--fail);padding:4px 10px;margin:4px 0}
    .x-t{color:#0550ae}
    .x-a{color:#953800}
    .x-v{color:#0a3069}
    .x-c{color:#6e7781;font-style:italic}
    .x-p{color:#8250df}
    .deletes{color:#a40e26;font-weight:600}
    section.panel{margin-bottom:18px}
    .panel-head{display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
    .final{display:inline-block;background:#24292f;color:#fff;border-radius:10px;padding:0 9px;font-weight:700;font-size:12px}
    .outcome{font-weight:700}
    .outcome.pass{color:var(--pass)}
    .outcome.fail,.outcome.error{color:var(--fail)}
    .verdict{border:1px solid var(--line);border-left:5px solid #8c959f;border-radius:4px;padding:4px 8px;margin:6px 0}
    .verdict.st-pass{border-left-color:var(--pass)}
    .verdict.st-fail{border-left-color:var(--fail);background:#fff5f5}
    .verdict.st-muted{border-left-color:var(--soft);color:#424a53}
    .v-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 8px}
    .v-head code{font-size:12.5px;font-weight:700;word-break:break-all}
    .reason{margin:2px 0}
    .badge{display:inline-block;border-radius:10px;padding:0 8px;color:#fff;font-size:11px;font-weight:700;text-transform:uppercase;background:#8c959f}
    .badge.pass{background:var(--pass)}
    .badge.fail{background:var(--fail)}
    .badge.pending{background:#8c959f}
    .badge.muted{background:var(--soft);color:#57606a}
    .level{font-size:11px;color:var(--muted)}
    .level.required{color:#424a53;font-weight:600}
    ul.evidence{margin:2px 0;padding-left:18px;font-size:13px}
    ul.evidence li{margin:2px 0;word-break:break-word}
    .error-box{background:#ffebe9;border:1px solid #ff8182;color:#82071e;border-radius:6px;padding:4px 10px;margin:6px 0;word-break:break-word}
    .error-box button{margin-left:8px;font-size:11px;padding:0 6px}
    ul#knobs{list-style:none;margin:4px 0;padding:0}
    ul#knobs li{display:flex;align-items:baseline;gap:8px;padding:2px 0;border-bottom:1px solid var(--soft)}
    ul#knobs li code{font-size:12.5px;word-break:break-all}
    ul#knobs li button{margin-left:auto;font-size:11px;padding:0 6px}
    .row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:4px 0}
    .row input[type=text]{flex:1;min-width:10em;padding:2px 6px;border:1px solid var(--line);border-radius:6px}
    .row select{max-width:100%}
    .hint{font-size:12px;color:var(--muted);margin:2px 0 6px;min-height:1em}
    dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:1px 12px;margin:4px 0;font-size:13px}
    dl.facts dt{color:var(--muted)}
    dl.facts dd{margin:0;word-break:break-all}
    @media (max-width:1300px){.halves{grid-template-columns:minmax(0,1fr)}}
    @media (max-width:1000px){
    body{display:block;height:auto}
    html{height:auto}
    .layout{display:block}
    main{border-right:0;border-bottom:1px solid var(--line)}
    #exchanges{height:70vh;flex:none}
    .c-chips{display:none}
    }
    @media print{#exchanges{overflow:visible;height:auto}.layout{display:block}body{display:block}}
    </style>
    </head>
    <body>
    <header>
    <div class="title-line">
    <h1>SAMLHarness live console</h1>
    <span id="status" class="status connecting" role="status" aria-live="polite" title="the event stream from samlharness serve">connecting</span>
    <nav class="downloads" aria-label="Downloads">
    <a id="dl-har" href="traffic.har" download="traffic.har" title="the session's traffic as HAR 1.2">traffic.har</a>
    <!--judged-->
    <a id="dl-report" href="report.html" target="_blank" rel="noopener" title="this session's conformance report, judged so far">report.html</a>
    <a id="dl-verdicts" href="verdicts.json" download="verdicts.json" title="the verdicts, judged so far" hidden>verdicts.json</a>
    <!--/judged-->
    </nav>
    </div>
    <div id="session" class="session-line"><span class="muted">waiting for samlharness serve…</span></div>
    <!--notice-->
    <div id="start" class="start" hidden></div>
    <div id="reach" class="reach" hidden></div>
    <details id="endpoints" class="endpoints"><summary>Endpoints, credentials and the ready line</summary><div id="endpoints-body" class="small"><p class="muted">not known yet</p></div></details>
    </header>
    <div class="layout">
    <main aria-label="Exchanges">
    <div class="toolbar">
    <h2>Exchanges <span id="exchange-count" class="count" title="exchanges shown">0</span></h2>
    <input id="filter" type="search" placeholder="filter: mock, method, path, status, message…" aria-label="Filter the exchanges" spellcheck="false" autocomplete="off">
    <span id="filter-count" class="muted small"></span>
    <button id="expand-all" type="button" title="open every exchange (for screenshots)">expand all</button>
    <button id="collapse-all" type="button">collapse all</button>
    <label class="small" title="keep the newest exchange in view"><input id="follow" type="checkbox" checked> follow</label>
    </div>
    <div id="log-note" class="note" role="note" hidden></div>
    <div id="dropped-note" class="note" role="note" hidden></div>
    <div class="cols" aria-hidden="true"><span class="c-seq">#</span><span class="c-mock">mock</span><span class="c-method">method</span><span class="c-path">path</span><span class="c-status">status</span><span class="c-time">wait</span></div>
    <div id="exchanges" tabindex="-1">
    <div id="exchange-list" role="list" aria-label="Exchanges, oldest first"></div>
    <p id="no-exchanges" class="empty-list">No exchange yet. Point the app at the start URL and log in; each request to a mock shows up here as it happens.</p>
    <button id="new-below" type="button" hidden>↓ new exchanges</button>
    </div>
    </main>
    <aside>
    <section id="verdicts-panel" class="panel" aria-label="Checks" hidden>
    <div class="panel-head">
    <h2>Checks</h2>
    <span id="verdicts-final" class="final" title="the session has ended: these are the verdicts" hidden>final</span>
    <span id="verdicts-outcome" class="outcome"></span>
    </div>
    <p id="verdicts-summary" class="small muted">waiting for the first verdicts…</p>
    <p id="verdicts-notice" class="notice" role="note" hidden></p>
    <div id="verdicts"></div>
    </section>
    <section id="controls-panel" class="panel" aria-label="Mocks">
    <div class="panel-head"><h2>Mocks</h2><button id="refresh-state" type="button" class="small" title="GET api/state">refresh</button></div>
    <div id="control-error" class="error-box" role="alert" hidden></div>
    <fieldset id="controls">
    <dl id="state-facts" class="facts"><dt>profile</dt><dd class="muted">—</dd></dl>
    <h3>Knobs in force</h3>
    <ul id="knobs"><li class="muted">—</li></ul>
    <form id="knob-form" class="row" autocomplete="off">
    <input id="knob-input" type="text" list="knob-names" placeholder="knob, e.g. wrong-audience or slow=5" aria-label="Knob to add" spellcheck="false">
    <button id="knob-add" type="submit">add</button>
    </form>
    <datalist id="knob-names"></datalist>
    <div class="row"><select id="knob-catalog" aria-label="Knob catalog"><option value="">catalog…</option></select>
    <button id="knobs-clear" type="button" title="DELETE api/knobs: the knobs set here go; the profile's stay">clear run-time knobs</button></div>
    <p id="knob-hint" class="hint"></p>
    <h3>Clock</h3>
    <dl class="facts"><dt>mocks' time</dt><dd><code id="clock-now">—</code></dd><dt>offset</dt><dd id="clock-offset">—</dd></dl>
    <div class="row">
    <button type="button" class="advance" data-advance="60">+1 min</button>
    <button type="button" class="advance" data-advance="3600">+1 h</button>
    <button type="button" class="advance" data-advance="86400">+1 day</button>
    <button id="clock-real" type="button" title="move the clock back by its offset" hidden>back to real time</button>
    </div>
    <h3>Profile</h3>
    <div class="row"><select id="profile-select" aria-label="Profile"></select></div>
    <p class="hint">Switching the profile makes the mocks forget their sessions.</p>
    <h3>Reset</h3>
    <div class="row"><button id="reset" type="button" class="danger" title="POST api/reset">reset the mocks…</button></div>
    <p class="hint">Forgets sessions, flows, lockouts and the traffic log.</p>
    </fieldset>
    </section>
    </aside>
    </div>
    <script>
    (function () {
      'use strict';

      // Everything the server sends is data: it reaches the page through textContent, attribute
      // setters, or esc() (the XML colouring). Nothing from the server is ever parsed as HTML.
      var MAX_EXCHANGES = 2000;
      var KNOWN_MOCKS = ['idp', 'sp', 'auth', 'proxy', 'cas', 'adfs', 'cm', 'control'];

      function $(id) { return document.getElementById(id); }

      function esc(s) {
        return String(s).replace(/[&<>"']/g, function (c) {
          return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
        });
      }

      function str(v) { return v == null ? '' : String(v); }

      function pick(obj) {
        if (!obj || typeof obj !== 'object') return undefined;
        for (var i = 1; i < arguments.length; i++) {
          if (obj[arguments[i]] !== undefined) return obj[arguments[i]];
        }
        return undefined;
      }

      function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

      function appendKids(parent, kid) {
        if (kid == null || kid === false) return;
        if (Array.isArray(kid)) { kid.forEach(function (k) { appendKids(parent, k); }); return; }
        parent.appendChild(typeof kid === 'object' && kid.nodeType ? kid : document.createTextNode(String(kid)));
      }

      // h('div', {class: 'x', title: t, onclick: f}, child, 'text', [more]): strings become text nodes.
      function h(tag, props) {
        var e = document.createElement(tag);
        if (props) {
          Object.keys(props).forEach(function (k) {
            var v = props[k];
            if (v == null || v === false) return;
            if (k === 'class') e.className = v;
            else if (k === 'text') e.textContent = String(v);
            else if (k.slice(0, 2) === 'on' && typeof v === 'function') e.addEventListener(k.slice(2), v);
            else e.setAttribute(k, v === true ? '' : String(v));
          });
        }
        for (var i = 2; i < arguments.length; i++) appendKids(e, arguments[i]);
        return e;
      }

      function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

      function safeHref(u) { return typeof u === 'string' && /^https?:\/\//i.test(u) ? u : null; }

      function headersOf(hs) {
        if (Array.isArray(hs)) {
          return hs.map(function (x) {
            if (Array.isArray(x)) return { name: str(x[0]), value: str(x[1]) };
            return { name: str(x && x.name), value: str(x && x.value) };
          });
        }
        if (isObject(hs)) return Object.keys(hs).map(function (k) { return { name: k, value: str(hs[k]) }; });
        return [];
      }

      function fmtMs(ms) {
        if (typeof ms !== 'number' || !isFinite(ms)) return '';
        if (Math.abs(ms) < 1000) return Math.round(ms) + ' ms';
        return (ms / 1000).toFixed(Math.abs(ms) < 10000 ? 2 : 1) + ' s';
      }

      function fmtDuration(seconds) {
        var s = Number(seconds);
        if (!isFinite(s)) return '—';
        if (s === 0) return 'none (real time)';
        var sign = s < 0 ? '−' : '+';
        s = Math.abs(s);
        var d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), sec = Math.round(s % 60);
        var parts = [];
        if (d) parts.push(d + ' d');
        if (hr) parts.push(hr + ' h');
        if (m) parts.push(m + ' min');
        if (sec || !parts.length) parts.push(sec + ' s');
        return sign + parts.join(' ') + ' (' + sign + Math.round(Math.abs(Number(seconds))) + ' s)';
      }

      function clock() { return new Date().toLocaleTimeString(); }

      function splitURL(u) {
        try {
          var x = new URL(u);
          return { path: x.pathname + x.search, host: x.host };
        } catch (e) {
          return { path: str(u), host: '' };
        }
      }

      function mockClass(mock) { return 'm-' + (KNOWN_MOCKS.indexOf(mock) >= 0 ? mock : 'other'); }

      // ---- XML colouring: every piece goes through esc(); the spans are ours.
      function colourTag(t) {
        var m = /^(<\/?)([^\s\/>]+)([\s\S]*?)(\/?>)$/.exec(t);
        if (!m) return '<span class="x-t">' + esc(t) + '</span>';
        var out = '<span class="x-t">' + esc(m[1] + m[2]) + '</span>';
        var re = /([^\s=]+)(\s*=\s*)("[^"]*"|'[^']*')|(\s+)|([^\s]+)/g, a, rest = m[3];
        while ((a = re.exec(rest)) !== null) {
          if (a[1] !== undefined) out += '<span class="x-a">' + esc(a[1]) + '</span>' + esc(a[2]) + '<span class="x-v">' + esc(a[3]) + '</span>';
          else out += esc(a[0]);
        }
        return out + '<span class="x-t">' + esc(m[4]) + '</span>';
      }

      function colourXML(xml) {
        if (xml.length > 300000) return esc(xml);
        var re = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[?!][\s\S]*?>|<\/?[^<>]+>|[^<]+|</g, m, out = '';
        while ((m = re.exec(xml)) !== null) {
          var t = m[0];
          if (t.slice(0, 4) === '<!--') out += '<span class="x-c">' + esc(t) + '</span>';
          else if (t.slice(0, 2) === '<?' || t.slice(0, 2) === '<!') out += '<span class="x-p">' + esc(t) + '</span>';
          else if (t.length > 1 && t.charAt(0) === '<') out += colourTag(t);
          else out += esc(t);
        }
        return out;
      }

      function copyText(text, button) {
        function done(ok) {
          button.textContent = ok ? 'copied' : 'copy failed';
          setTimeout(function () { button.textContent = 'copy'; }, 1500);
        }
        function fallback() {
          var ta = h('textarea', { style: 'position:fixed;left:-9999px;top:0', 'aria-hidden': 'true' });
          ta.value = text;
          document.body.appendChild(ta);
          ta.select();
          var ok = false;
          try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
          document.body.removeChild(ta);
          done(ok);
        }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
        } else {
          fallback();
        }
      }

      // ---- page state
      var list = $('exchange-list');
      var scroller = $('exchanges');
      var records = [];            // sorted by seq: {seq, data, el, sum, details, open, search}
      var bySeq = new Map();
      var expanded = new Set();    // sequences the user opened (kept across reconnects)
      var dropped = 0;
      var follow = true;
      var pendingNew = 0;
      var restoreScroll = null;
      var scrollQueued = false;
      var userScrollAt = 0;        // when the user last wheeled, touched or keyed the list
      var targetRec = null;
      var pendingTarget = null;
      var filterText = '';
      var session = {};
      var ready = null;
      var lastState = null;
      var catalog = {};
      var catalogKeys = '';
      var baseKnobs = null;        // the profile's knobs, when known
      var verdictEls = new Map();
      var haveVerdicts = false;
      var finalSeen = false;
      var es = null;
      var retryTimer = null;
      var retryDelay = 1000;
      var stopped = false;

      // ---- connection status
      function setStatus(cls, text, title) {
        var s = $('status');
        s.className = 'status ' + cls;
        s.textContent = text;
        if (title) s.title = title;
      }

      // ---- exchanges
      var EMPTY_TEXT = $('no-exchanges').textContent;

      function updateCount() {
        var empty = $('no-exchanges');
        $('exchange-count').textContent = String(records.length);
        empty.hidden = records.length > 0;
        empty.textContent = EMPTY_TEXT;
        if (filterText) {
          var shown = 0;
          records.forEach(function (r) { if (!r.el.hidden) shown++; });
          $('filter-count').textContent = shown + ' of ' + records.length + ' match';
          if (records.length && !shown) {
            empty.hidden = false;
            empty.textContent = 'No exchange matches the filter.';
          }
        } else {
          $('filter-count').textContent = '';
        }
      }

      function updateDropped() {
        var n = $('dropped-note');
        n.hidden = dropped === 0;
        n.textContent = dropped ? dropped + ' older exchange' + (dropped === 1 ? ' was' : 's were') +
          ' dropped from this view (it keeps the newest ' + MAX_EXCHANGES + '); traffic.har has the session’s log.' : '';
      }

      function logNote(text) {
        var n = $('log-note');
        n.hidden = !text;
        n.textContent = text || '';
      }

      function setFollow(v) {
        follow = v;
        $('follow').checked = v;
        if (v) {
          pendingNew = 0;
          $('new-below').hidden = true;
        }
      }

      function atBottom() { return scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 24; }

      function scrollToBottom() {
        scroller.scrollTop = scroller.scrollHeight;
      }

      function queueScroll() {
        if (scrollQueued) return;
        scrollQueued = true;
        requestAnimationFrame(function () {
          scrollQueued = false;
          if (restoreScroll !== null) {
            if (scroller.scrollHeight >= restoreScroll + scroller.clientHeight) {
              scroller.scrollTop = restoreScroll;
              restoreScroll = null;
            }
            return;
          }
          if (follow) scrollToBottom();
        });
      }

      function problemAnnotations(ann) {
        if (!isObject(ann)) return [];
        return Object.keys(ann).filter(function (k) {
          if (k === 'tls.summary') return false;
          if (k === 'tls.outcome') return /alert|fail|refus|error/i.test(str(ann[k]));
          return /rejected|refused|error|fault|failure|problem/i.test(k);
        });
      }

      function statusOf(ex) {
        var req = ex.request || {}, res = ex.response, ann = isObject(ex.annotations) ? ex.annotations : {};
        if (isObject(res) && res.status != null) {
          var code = Number(res.status);
          return { text: String(res.status), cls: 'st-' + (code >= 100 && code < 600 ? String(Math.floor(code / 100)) : 'none') };
        }
        if (str(req.method).toUpperCase() === 'TLS') {
          return { text: str(ann['tls.summary']) || str(ann['tls.outcome']) || 'TLS, no request', cls: 'st-tls' };
        }
        return { text: 'no answer', cls: 'st-none' };
      }

      function renderSummary(rec) {
        var ex = rec.data, req = isObject(ex.request) ? ex.request : {}, ann = isObject(ex.annotations) ? ex.annotations : {};
        var mock = str(ex.mock) || '?', method = str(req.method) || '?', url = str(req.url);
        var row = rec.el, sum = rec.sum;
        row.setAttribute('data-seq', String(rec.seq));
        row.setAttribute('data-mock', mock);
        row.setAttribute('data-method', method);
        var st = statusOf(ex);
        var problems = problemAnnotations(ann).filter(function (k) { return !(k === 'tls.outcome' && st.cls === 'st-tls'); });
        var messages = Array.isArray(ex.messages) ? ex.messages : [];
        var damaged = messages.some(function (m) { return m && Array.isArray(m.findings) && m.findings.length; });
        var failed = messages.some(function (m) { return m && m.error; });
        row.className = 'exchange ' + mockClass(mock) + (rec.open ? ' open' : '') + (rec === targetRec ? ' target' : '') +
          (problems.length || st.cls === 'st-tls' || st.cls === 'st-none' ? ' problem' : '');
        var u = splitURL(url);
        var shown = method.toUpperCase() === 'TLS' ? (u.host || url) : u.path;
        var chips = [];
        var names = [];
        messages.forEach(function (m) { var n = str(m && m.name); if (n && names.indexOf(n) < 0) names.push(n); });
        names.forEach(function (n) { chips.push(h('span', { class: 'chip' }, n)); });
        if (damaged) chips.push(h('span', { class: 'chip warn', title: 'a decoded message was damaged on the way' }, '⚠ damaged'));
        if (failed) chips.push(h('span', { class: 'chip bad', title: 'a message could not be decoded' }, 'decode error'));
        problems.forEach(function (k) {
          var label = k + ': ' + str(ann[k]);
          chips.push(h('span', { class: 'chip bad', title: label }, label));
        });
        Object.keys(ann).forEach(function (k) {
          if (!/\.knobs?$/.test(k)) return;
          var label = k + ': ' + str(ann[k]);
          chips.push(h('span', { class: 'chip', title: 'a knob shaped this answer — ' + label }, 'knob: ' + str(ann[k])));
        });
        if (chips.length > 5) {
          var more = chips.length - 4;
          chips = chips.slice(0, 4);
          chips.push(h('span', { class: 'chip', title: 'open the exchange for the rest' }, '+' + more));
        }
        clear(sum);
        sum.appendChild(h('span', { class: 'c-seq' }, '#' + rec.seq));
        sum.appendChild(h('span', { class: 'c-mock' }, h('span', { class: 'mock-badge' }, mock)));
        sum.appendChild(h('span', { class: 'c-method' }, method));
        sum.appendChild(h('span', { class: 'c-path', title: url }, shown || '—'));
        if (chips.length) sum.appendChild(h('span', { class: 'c-chips' }, chips));
        sum.appendChild(h('span', { class: 'c-status ' + st.cls, title: st.text }, st.text));
        var wait = typeof ex.wait_ms === 'number' ? fmtMs(ex.wait_ms) : '';
        sum.appendChild(h('span', {
          class: 'c-time',
          title: (typeof ex.at_ms === 'number' ? 'at +' + fmtMs(ex.at_ms) + ' into the session; ' : '') + (wait ? 'answered after ' + wait : '')
        }, wait));
        rec.search = ['#' + rec.seq, mock, method, url, st.text, names.join(' '), damaged ? 'damaged' : '',
          Object.keys(ann).map(function (k) { return k + ' ' + str(ann[k]); }).join(' ')].join(' ').toLowerCase();
      }

      function kvTable(rows, heads) {
        var t = h('table', { class: 'kv' });
        if (heads) t.appendChild(h('thead', null, h('tr', null, heads.map(function (x) { return h('th', null, x); }))));
        var tb = h('tbody');
        rows.forEach(function (r) {
          tb.appendChild(h('tr', null, h('th', { scope: 'row' }, r[0]), r.slice(1).map(function (c) { return h('td', null, c); })));
        });
        t.appendChild(tb);
        return t;
      }

      function cookiesSent(headers) {
        var out = [];
        headers.forEach(function (x) {
          if (x.name.toLowerCase() !== 'cookie') return;
          x.value.split(';').forEach(function (part) {
            part = part.trim();
            if (!part) return;
            var i = part.indexOf('=');
            out.push(i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)]);
          });
        });
        return out;
      }

      function cookiesSet(headers) {
        var out = [];
        headers.forEach(function (x) {
          if (x.name.toLowerCase() !== 'set-cookie') return;
          var parts = x.value.split(';');
          var first = parts.shift() || '';
          var i = first.indexOf('=');
          var name = (i < 0 ? first : first.slice(0, i)).trim();
          var value = i < 0 ? '' : first.slice(i + 1).trim();
          var attrs = parts.map(function (p) { return p.trim(); }).filter(Boolean);
          var deletes = attrs.some(function (a) { return /^max-age\s*=\s*(0|-\d+)$/i.test(a); });
          out.push([name, value, [attrs.join('; ') || '—', deletes ? h('span', { class: 'deletes' }, ' (deletes the cookie)') : null]]);
        });
        return out;
      }

      function bodyBlock(b) {
        if (!isObject(b)) return h('p', { class: 'muted small' }, 'no body');
        var meta = [];
        if (b.bytes != null) meta.push(b.bytes + ' bytes');
        if (b.truncated) meta.push('truncated');
        if (b.text == null) return h('p', { class: 'muted small' }, b.bytes === 0 ? 'empty body' : 'binary body' + (meta.length ? ', ' + meta.join(', ') : ''));
        return [h('div', { class: 'muted small' }, 'body' + (meta.length ? ' — ' + meta.join(' · ') : '')), h('pre', { class: 'body' }, str(b.text))];
      }

      function buildMessage(m) {
        m = isObject(m) ? m : {};
        var name = str(m.name) || 'message';
        var findings = Array.isArray(m.findings) ? m.findings : [];
        var box = h('div', { class: 'message' + (findings.length ? ' damaged' : '') + (m.error ? ' failed' : ''), 'data-name': name });
        var xml = m.xml == null ? null : String(m.xml);
        var copy = xml === null ? null : h('button', {
          type: 'button', title: 'copy the XML',
          onclick: function (ev) { ev.stopPropagation(); copyText(xml, ev.currentTarget); }
        }, 'copy');
        box.appendChild(h('h5', null, name, ' ', h('span', { class: 'muted' }, m.location ? 'in ' + str(m.location) : ''), copy));
        if (m.relay_state != null) box.appendChild(h('div', { class: 'small' }, 'RelayState: ', h('code', null, str(m.relay_state))));
        if (findings.length) {
          box.appendChild(h('div', { class: 'damaged-box', role: 'note' },
            h('strong', null, '⚠ Damaged on the way'),
            h('ul', null, findings.map(function (f) {
              var s = str(f), i = s.indexOf(': ');
              return h('li', { class: 'finding' }, i > 0 ? [h('code', null, s.slice(0, i)), ': ' + s.slice(i + 2)] : s);
            }))));
        }
        if (m.error != null) box.appendChild(h('div', { class: 'decode-error' }, h('strong', null, 'Could not decode: '), str(m.error)));
        var pre = h('pre', { class: 'xml' + (xml === null ? ' none' : '') });
        if (xml === null) pre.textContent = '(no XML decoded)';
        else pre.innerHTML = colourXML(xml);
        box.appendChild(pre);
        return box;
      }

      function buildDetails(rec) {
        var ex = rec.data, req = isObject(ex.request) ? ex.request : {}, res = isObject(ex.response) ? ex.response : null;
        var ann = isObject(ex.annotations) ? ex.annotations : null;
        var d = h('div', { class: 'details' });
        var timing = [];
        if (typeof ex.at_ms === 'number') timing.push('at +' + fmtMs(ex.at_ms));
        if (typeof ex.wait_ms === 'number') timing.push('answered after ' + fmtMs(ex.wait_ms));
        d.appendChild(h('div', { class: 'overview' }, h('strong', null, str(req.method) + ' '), h('code', null, str(req.url)),
          timing.length ? h('span', { class: 'muted small' }, ' — ' + timing.join(', ')) : null));
        if (ann && Object.keys(ann).length) {
          d.appendChild(h('h4', null, 'Annotations'));
          d.appendChild(kvTable(Object.keys(ann).sort().map(function (k) { return [k, str(ann[k])]; })));
        }
        var messages = Array.isArray(ex.messages) ? ex.messages : [];
        if (messages.length) {
          d.appendChild(h('h4', null, 'Decoded messages'));
          messages.forEach(function (m) { d.appendChild(buildMessage(m)); });
        }
        var reqHeaders = headersOf(req.headers);
        var left = h('div', { class: 'half request' }, h('h4', null, 'Request'));
        left.appendChild(reqHeaders.length ? kvTable(reqHeaders.map(function (x) { return [x.name, x.value]; })) : h('p', { class: 'muted small' }, 'no headers'));
        var sent = cookiesSent(reqHeaders);
        left.appendChild(h('h4', null, 'Cookies sent'));
        left.appendChild(sent.length ? kvTable(sent, ['name', 'value']) : h('p', { class: 'muted small' }, 'none'));
        left.appendChild(h('h4', null, 'Request body'));
        appendKids(left, bodyBlock(req.body));
        var right = h('div', { class: 'half response' });
        if (res) {
          var resHeaders = headersOf(res.headers);
          right.appendChild(h('h4', null, 'Response ', h('span', { class: statusOf(ex).cls }, str(res.status))));
          right.appendChild(resHeaders.length ? kvTable(resHeaders.map(function (x) { return [x.name, x.value]; })) : h('p', { class: 'muted small' }, 'no headers'));
          var set = cookiesSet(resHeaders);
          right.appendChild(h('h4', null, 'Cookies set'));
          right.appendChild(set.length ? kvTable(set, ['name', 'value', 'attributes']) : h('p', { class: 'muted small' }, 'none'));
          right.appendChild(h('h4', null, 'Response body'));
          appendKids(right, bodyBlock(res.body));
        } else if (str(req.method).toUpperCase() === 'TLS') {
          right.appendChild(h('h4', null, 'TLS connection, no request'));
          right.appendChild(h('p', { class: 'st-tls' }, statusOf(ex).text));
        } else {
          right.appendChild(h('h4', null, 'Response'));
          right.appendChild(h('p', { class: 'st-none' }, 'The mock never answered.'));
        }
        d.appendChild(h('div', { class: 'halves' }, left, right));
        return d;
      }

      function setOpen(rec, open) {
        rec.open = open;
        if (open) {
          if (!rec.details) {
            rec.details = buildDetails(rec);
            rec.el.appendChild(rec.details);
          }
          expanded.add(rec.seq);
        } else {
          if (rec.details) {
            rec.el.removeChild(rec.details);
            rec.details = null;
          }
          expanded.delete(rec.seq);
        }
        rec.el.classList.toggle('open', open);
        rec.sum.setAttribute('aria-expanded', open ? 'true' : 'false');
      }

      function buildRow(rec) {
        rec.el = h('div', { class: 'exchange', id: 'ex-' + rec.seq, role: 'listitem' });
        rec.sum = h('div', { class: 'summary', role: 'button', tabindex: '0', 'aria-expanded': 'false' });
        rec.el.appendChild(rec.sum);
        rec.sum.addEventListener('click', function () {
          var sel = window.getSelection ? String(window.getSelection()) : '';
          if (sel && rec.sum.contains(window.getSelection().anchorNode)) return;
          userToggle(rec);
        });
        rec.sum.addEventListener('keydown', function (e) {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            userToggle(rec);
          }
        });
        renderSummary(rec);
      }

      function userToggle(rec) {
        // Reading an exchange: stop following so new ones do not scroll it away.
        if (!rec.open) setFollow(false);
        setOpen(rec, !rec.open);
      }

      function matches(rec) { return !filterText || rec.search.indexOf(filterText) >= 0; }

      function addExchange(raw) {
        var ex = isObject(raw) && isObject(raw.exchange) && raw.sequence == null ? raw.exchange : raw;
        if (!isObject(ex)) return;
        var seq = Number(pick(ex, 'sequence', 'seq'));
        if (!isFinite(seq)) return;
        var rec = bySeq.get(seq);
        if (rec) {
          rec.data = ex;
          renderSummary(rec);
          if (rec.open) {
            rec.el.removeChild(rec.details);
            rec.details = null;
            setOpen(rec, true);
          }
          rec.el.hidden = !matches(rec);
          return;
        }
        var i = records.length;
        while (i > 0 && records[i - 1].seq > seq) i--;
        if (records.length >= MAX_EXCHANGES && i === 0) {
          dropped++;
          updateDropped();
          return;
        }
        rec = { seq: seq, data: ex, el: null, sum: null, details: null, open: false, search: '' };
        buildRow(rec);
        list.insertBefore(rec.el, i < records.length ? records[i].el : null);
        records.splice(i, 0, rec);
        bySeq.set(seq, rec);
        while (records.length > MAX_EXCHANGES) {
          var old = records.shift();
          bySeq.delete(old.seq);
          list.removeChild(old.el);
          if (old === targetRec) targetRec = null;
          dropped++;
        }
        rec.el.hidden = !matches(rec);
        if (expanded.has(seq)) setOpen(rec, true);
        updateDropped();
        updateCount();
        if (!follow && restoreScroll === null && !rec.el.hidden) {
          pendingNew++;
          var nb = $('new-below');
          nb.textContent = '↓ ' + pendingNew + ' new exchange' + (pendingNew === 1 ? '' : 's');
          nb.hidden = false;
        }
        queueScroll();
        if (pendingTarget === seq) {
          pendingTarget = null;
          goToExchange(seq);
        }
      }

      function clearExchanges(note) {
        records.forEach(function (r) { if (r.el.parentNode) r.el.parentNode.removeChild(r.el); });
        records = [];
        bySeq.clear();
        targetRec = null;
        dropped = 0;
        pendingNew = 0;
        $('new-below').hidden = true;
        updateDropped();
        updateCount();
        logNote(note || '');
      }

      function goToExchange(seq) {
        var rec = bySeq.get(seq);
        if (!rec) {
          pendingTarget = seq;
          logNote('Exchange #' + seq + ' is not in this view (dropped, or not received yet).');
          return;
        }
        if (rec.el.hidden) {
          $('filter').value = '';
          applyFilter('');
        }
        setFollow(false);
        setOpen(rec, true);
        if (targetRec && targetRec !== rec) targetRec.el.classList.remove('target');
        targetRec = rec;
        rec.el.classList.add('target');
        rec.el.scrollIntoView({ block: 'start' });
        try { rec.sum.focus({ preventScroll: true }); } catch (e) { rec.sum.focus(); }
      }

      function applyFilter(text) {
        filterText = String(text || '').trim().toLowerCase();
        records.forEach(function (r) { r.el.hidden = !matches(r); });
        updateCount();
      }

      // Scroll events come a frame late (more rows may have arrived, the oldest dropped): following
      // stops only when the user scrolled away from the bottom, and resumes at the bottom.
      function markUser() { userScrollAt = Date.now(); }
      ['wheel', 'touchstart', 'touchmove', 'mousedown', 'keydown'].forEach(function (name) {
        scroller.addEventListener(name, markUser, { passive: true });
      });
      scroller.addEventListener('scroll', function () {
        if (restoreScroll !== null) return;
        if (follow) {
          if (Date.now() - userScrollAt < 1000 && !atBottom()) setFollow(false);
        } else if (atBottom()) {
          setFollow(true);
        }
      });
      $('follow').addEventListener('change', function (e) {
        setFollow(e.target.checked);
        if (follow) scrollToBottom();
      });
      $('new-below').addEventListener('click', function () {
        setFollow(true);
        scrollToBottom();
      });
      $('expand-all').addEventListener('click', function () {
        records.forEach(function (r) { if (!r.open) setOpen(r, true); });
      });
      $('collapse-all').addEventListener('click', function () {
        records.forEach(function (r) { if (r.open) setOpen(r, false); });
        expanded.clear();
      });
      var filterTimer = null;
      $('filter').addEventListener('input', function (e) {
        clearTimeout(filterTimer);
        var v = e.target.value;
        filterTimer = setTimeout(function () { applyFilter(v); }, 120);
      });

      // ---- session header
      function deviceURL(u) {
        var ph = str(session.public_host);
        if (!ph) return null;
        try {
          var x = new URL(u);
          if (!/^(127\.0\.0\.1|localhost|\[::1\])$/i.test(x.hostname) || x.hostname === ph) return null;
          x.hostname = ph.indexOf(':') >= 0 && ph.charAt(0) !== '[' ? '[' + ph + ']' : ph;
          return x.href;
        } catch (e) {
          return null;
        }
      }

      function urlNode(u) {
        var href = safeHref(u);
        return href ? h('a', { href: href, target: '_blank', rel: 'noopener' }, h('code', null, u)) : h('code', null, str(u));
      }

      function renderSession() {
        var s = session || {};
        var line = clear($('session'));
        if (s.scenario) {
          line.appendChild(h('span', null, 'Scenario ', h('code', { class: 'scenario-id' }, str(s.scenario))));
          if (s.title) line.appendChild(h('span', null, str(s.title)));
          if (s.flow) line.appendChild(h('span', { class: 'tag', title: 'flow' }, 'flow: ' + str(s.flow)));
          if (s.expect) {
            var e = str(s.expect);
            line.appendChild(h('span', { class: 'tag expect-' + (e === 'success' || e === 'failure' ? e : 'other'), title: 'the expectation' },
              e === 'success' ? 'expects: the login succeeds' : e === 'failure' ? 'expects: the client refuses / reports a failure' : 'expects: ' + e));
          }
          document.title = str(s.scenario) + ' — SAMLHarness console';
        } else {
          line.appendChild(h('span', { class: 'muted' }, 'traffic only — no scenario'));
          document.title = 'traffic — SAMLHarness console';
        }
        var r = str(s.reachable);
        var reach = clear($('reach'));
        var network = /network|0\.0\.0\.0|::(?!1)/i.test(r) && !/loopback/i.test(r);
        reach.hidden = !r && !s.public_host;
        reach.className = 'reach ' + (network ? 'network' : 'loopback');
        if (network) {
          reach.appendChild(h('span', null, '⚠ The mocks are reachable ' + r + ': anyone on this network can reach them and this console. Use a trusted network.'));
        } else if (r) {
          reach.appendChild(h('span', null, 'Mocks reachable: ' + r + '.'));
        }
        if (s.public_host) {
          reach.appendChild(document.createTextNode(' Devices reach them as '));
          reach.appendChild(h('code', null, str(s.public_host)));
          reach.appendChild(document.createTextNode('.'));
        }
        if ($('dl-verdicts')) $('dl-verdicts').hidden = !s.scenario;
        $('verdicts-panel').hidden = !s.scenario && !haveVerdicts;
        renderStart();
        renderEndpoints();
      }

      function renderStart() {
        var box = clear($('start'));
        var sc = ready && isObject(ready.scenario) ? ready.scenario : null;
        if (!sc || !sc.start) { box.hidden = true; return; }
        box.hidden = false;
        box.appendChild(h('strong', null, 'Start: '));
        box.appendChild(urlNode(str(sc.start)));
        var dev = deviceURL(str(sc.start));
        if (dev) box.appendChild(h('span', null, ' — from the device: ', urlNode(dev)));
        if (sc.username) {
          box.appendChild(h('span', null, ' · user ', h('code', null, str(sc.username))));
          if (sc.password != null) box.appendChild(h('span', null, ' / ', h('code', null, str(sc.password))));
          if (sc.second_factor_code != null) box.appendChild(h('span', null, ' · code ', h('code', null, str(sc.second_factor_code))));
        }
      }

      function renderEndpoints() {
        var body = clear($('endpoints-body'));
        if (!isObject(ready)) { body.appendChild(h('p', { class: 'muted' }, 'not known yet')); return; }
        var rows = [];
        var sc = isObject(ready.scenario) ? ready.scenario : null;
        if (sc) {
          Object.keys(sc).sort().forEach(function (k) {
            var v = sc[k];
            if (v == null || typeof v === 'object') return;
            rows.push(['scenario ' + k, /^https?:/i.test(str(v)) ? urlNode(str(v)) : str(v)]);
          });
          if (isObject(sc.parameters)) {
            Object.keys(sc.parameters).sort().forEach(function (k) { rows.push([k, str(sc.parameters[k])]); });
          }
        }
        Object.keys(ready).sort().forEach(function (k) {
          var v = ready[k];
          if (!isObject(v) || k === 'scenario' || k === 'tls') return;
          if (v.base != null) rows.push([k, urlNode(str(v.base))]);
          if (v.metadata != null) rows.push([k + ' metadata', urlNode(str(v.metadata))]);
          if (v.secure != null) rows.push([k + ' secure', urlNode(str(v.secure))]);
        });
        if (Array.isArray(ready.users)) {
          ready.users.forEach(function (u) {
            if (isObject(u)) rows.push(['user', str(u.username) + ' / ' + str(u.password) + (u.second_factor_code ? ' · code ' + str(u.second_factor_code) : '')]);
          });
        }
        if (isObject(ready.tls)) {
          if (ready.tls.ca_file) rows.push(['trust this CA', str(ready.tls.ca_file)]);
          if (ready.tls.sp_plain) rows.push(['sp plain http', urlNode(str(ready.tls.sp_plain))]);
          var l = isObject(ready.tls.listeners) ? ready.tls.listeners : {};
          Object.keys(l).sort().forEach(function (k) { rows.push(['https ' + k, str(l[k])]); });
        }
        if (rows.length) body.appendChild(kvTable(rows));
        body.appendChild(h('details', null, h('summary', null, 'the ready line'), h('pre', null, JSON.stringify(ready, null, 2))));
      }

      // ---- verdicts
      var MUTED_STATUSES = ['not-applicable', 'not-evaluated'];

      function fillVerdict(el, v) {
        var check = str(v.check), status = str(v.status) || 'pending', level = str(v.level);
        el.setAttribute('data-check', check);
        el.setAttribute('data-status', status);
        el.setAttribute('data-level', level);
        var cls = status === 'pass' || status === 'fail' || status === 'pending' ? status : MUTED_STATUSES.indexOf(status) >= 0 ? 'muted' : 'pending';
        el.className = 'verdict st-' + cls;
        clear(el);
        el.appendChild(h('div', { class: 'v-head' },
          h('span', { class: 'badge ' + cls }, status),
          h('code', null, check),
          level ? h('span', { class: 'level ' + (level === 'required' ? 'required' : 'other') }, level) : null));
        if (v.reason) el.appendChild(h('p', { class: 'reason' }, str(v.reason)));
        var ev = Array.isArray(v.evidence) ? v.evidence : [];
        if (ev.length) {
          el.appendChild(h('ul', { class: 'evidence' }, ev.map(function (e) {
            e = isObject(e) ? e : {};
            var li = h('li');
            var n = e.exchange == null ? NaN : Number(e.exchange);
            if (isFinite(n)) {
              li.appendChild(h('a', {
                href: '#ex-' + n, class: 'ev-link', 'data-exchange': String(n), title: 'show exchange #' + n,
                onclick: function (evt) { evt.preventDefault(); goToExchange(n); }
              }, '#' + n + (e.mock ? ' ' + str(e.mock) : '')));
              li.appendChild(document.createTextNode(' '));
            } else if (e.mock) {
              li.appendChild(h('span', { class: 'muted' }, str(e.mock) + ' '));
            }
            if (e.detail) li.appendChild(document.createTextNode(str(e.detail)));
            if (e.excerpt != null) li.appendChild(h('pre', { class: 'excerpt' }, str(e.excerpt)));
            return li;
          })));
        }
      }

      function applyVerdicts(raw) {
        var v = Array.isArray(raw) ? { final: false, verdicts: raw } : raw;
        if (!isObject(v)) return;
        var rows = Array.isArray(v.verdicts) ? v.verdicts : [];
        haveVerdicts = true;
        $('verdicts-panel').hidden = false;
        var box = $('verdicts');
        var seen = new Set();
        var counts = {};
        var requiredFails = 0;
        rows.forEach(function (row) {
          if (!isObject(row)) return;
          var check = str(row.check);
          if (!check || seen.has(check)) return;
          seen.add(check);
          var el = verdictEls.get(check);
          if (!el) {
            el = h('div', { class: 'verdict' });
            verdictEls.set(check, el);
          }
          fillVerdict(el, row);
          box.appendChild(el);
          var st = str(row.status) || 'pending';
          counts[st] = (counts[st] || 0) + 1;
          if (st === 'fail' && str(row.level) === 'required') requiredFails++;
        });
        verdictEls.forEach(function (el, k) {
          if (!seen.has(k)) {
            if (el.parentNode) el.parentNode.removeChild(el);
            verdictEls.delete(k);
          }
        });
        var order = ['pass', 'fail', 'pending', 'not-applicable', 'not-evaluated'];
        Object.keys(counts).forEach(function (k) { if (order.indexOf(k) < 0) order.push(k); });
        var parts = order.filter(function (k) { return counts[k]; }).map(function (k) { return counts[k] + ' ' + k; });
        var final = v.final === true;
        finalSeen = final;
        $('verdicts-summary').textContent = (parts.length ? parts.join(' · ') : 'no checks') +
          (requiredFails ? ' — ' + requiredFails + ' required check' + (requiredFails === 1 ? '' : 's') + ' failed' : '') +
          (final ? ' — the session has ended' : ' — live, updated ' + clock());
        $('verdicts-final').hidden = !final;
        $('verdicts-notice').textContent = v.notice ? str(v.notice).replace(/`/g, '') : '';
        $('verdicts-notice').hidden = !v.notice;
        var outcome = $('verdicts-outcome');
        var overall = str(v.status);
        if (final && overall) {
          outcome.textContent = overall.toUpperCase();
          outcome.className = 'outcome ' + (overall === 'pass' || overall === 'fail' || overall === 'error' ? overall : '');
        } else {
          outcome.textContent = '';
          outcome.className = 'outcome';
        }
        var s = session && session.scenario ? str(session.scenario) : 'traffic';
        document.title = (requiredFails ? '✗ ' : final && overall === 'pass' ? '✓ ' : '') + s + ' — SAMLHarness console';
      }

      // ---- state and controls
      function knobName(k) { var i = k.indexOf('='); return i < 0 ? k : k.slice(0, i); }

      // Which knobs in force are the profile's and which were set at run time (PUT knobs sets the
      // run-time list as a whole, so adding one resends the others).
      function splitKnobs(s) {
        var all = Array.isArray(s && s.knobs) ? s.knobs.map(str) : [];
        var explicit = pick(s, 'runtime_knobs', 'runtimeKnobs');
        var base = pick(s, 'profile_knobs', 'profileKnobs');
        if (Array.isArray(explicit) && !Array.isArray(base)) {
          var rt = explicit.map(str);
          return all.map(function (k) {
            var j = rt.indexOf(k);
            if (j >= 0) { rt.splice(j, 1); return { text: k, runtime: true }; }
            return { text: k, runtime: false };
          });
        }
        base = Array.isArray(base) ? base.map(str) : baseKnobs;
        if (!base) return all.map(function (k) { return { text: k, runtime: false, unknown: true }; });
        var n = 0;
        while (n < base.length && n < all.length && all[n] === base[n]) n++;
        if (n === base.length) return all.map(function (k, i) { return { text: k, runtime: i >= n }; });
        var pool = base.slice();
        return all.map(function (k) {
          var j = pool.indexOf(k);
          if (j >= 0) { pool.splice(j, 1); return { text: k, runtime: false }; }
          return { text: k, runtime: true };
        });
      }

      function runtimeKnobs() {
        return splitKnobs(lastState || {}).filter(function (k) { return k.runtime; }).map(function (k) { return k.text; });
      }

      function renderKnobs(s) {
        var ul = clear($('knobs'));
        var knobs = splitKnobs(s);
        if (!knobs.length) {
          ul.appendChild(h('li', { class: 'muted' }, 'none'));
          return;
        }
        knobs.forEach(function (k) {
          var summary = str(catalog[knobName(k.text)]);
          var li = h('li', { title: summary || null, 'data-knob': k.text },
            h('code', null, k.text),
            k.runtime ? h('span', { class: 'muted small' }, 'run-time') : k.unknown ? null : h('span', { class: 'muted small' }, 'profile'));
          if (k.runtime) {
            li.appendChild(h('button', {
              type: 'button', title: 'remove this knob', 'aria-label': 'remove ' + k.text,
              onclick: function () {
                var rest = runtimeKnobs();
                var j = rest.indexOf(k.text);
                if (j >= 0) rest.splice(j, 1);
                control('PUT', 'api/knobs', { knobs: rest, replace: false }, 'remove knob ' + k.text);
              }
            }, '×'));
          }
          ul.appendChild(li);
        });
      }

      function renderCatalog() {
        var names = Object.keys(catalog).sort();
        var key = names.join('\n');
        if (key === catalogKeys) return;
        catalogKeys = key;
        var sel = $('knob-catalog');
        var dl = clear($('knob-names'));
        clear(sel);
        sel.appendChild(h('option', { value: '' }, names.length ? 'catalog (' + names.length + ' knobs)…' : 'catalog…'));
        names.forEach(function (n) {
          sel.appendChild(h('option', { value: n, title: str(catalog[n]) }, n));
          dl.appendChild(h('option', { value: n }, str(catalog[n])));
        });
      }

      function renderProfiles(s) {
        var sel = $('profile-select');
        var profiles = Array.isArray(s.profiles) ? s.profiles.map(str) : [];
        var current = str(s.profile);
        if (current && profiles.indexOf(current) < 0) profiles.unshift(current);
        clear(sel);
        profiles.forEach(function (p) { sel.appendChild(h('option', { value: p }, p)); });
        sel.value = current;
        sel.disabled = profiles.length < 2;
      }

      function applyState(raw) {
        var s = raw;
        if (isObject(s) && isObject(s.state) && !Array.isArray(s.knobs)) s = s.state;
        if (!isObject(s)) return;
        lastState = s;
        var cat = pick(s, 'knob_catalog', 'knobCatalog');
        if (isObject(cat)) { catalog = cat; renderCatalog(); }
        renderKnobs(s);
        renderProfiles(s);
        var facts = clear($('state-facts'));
        var add = function (k, v) {
          if (v === undefined || v === null || v === '') return;
          facts.appendChild(h('dt', null, k));
          facts.appendChild(h('dd', null, str(v)));
        };
        add('profile', s.profile);
        add('SP personality', s.personality);
        add('SP sessions', pick(s, 'sp_sessions', 'spSessions'));
        add('traffic entries', pick(s, 'traffic_entries', 'trafficEntries'));
        add('run tag', s.run);
        $('clock-now').textContent = str(s.now) || '—';
        var offset = Number(pick(s, 'clock_offset', 'clockOffset'));
        $('clock-offset').textContent = fmtDuration(isFinite(offset) ? offset : NaN);
        $('clock-real').hidden = !(isFinite(offset) && offset !== 0);
        var entries = pick(s, 'traffic_entries', 'trafficEntries');
        if (entries === 0 && records.length) clearExchanges('The traffic log was cleared (reset) at ' + clock() + '.');
      }

      function showError(text) {
        var box = clear($('control-error'));
        box.hidden = !text;
        if (text) {
          box.appendChild(document.createTextNode(text));
          box.appendChild(h('button', { type: 'button', onclick: function () { showError(null); } }, 'dismiss'));
        }
      }

      async function request(method, path, body) {
        var init = { method: method, cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } };
        // The control API takes state changes as JSON only (a cross-site form cannot send it).
        if (method !== 'GET') init.headers['Content-Type'] = 'application/json';
        if (body !== undefined && body !== null) init.body = JSON.stringify(body);
        var res = await fetch(path, init);
        var text = await res.text();
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        if (!res.ok) {
          var why = data && data.error ? str(data.error) : (text ? text.slice(0, 400) : res.statusText);
          throw new Error('HTTP ' + res.status + ': ' + why);
        }
        return data;
      }

      async function refreshState() {
        try {
          var s = await request('GET', 'api/state');
          applyState(s);
          return lastState;
        } catch (e) {
          showError('refresh state: ' + e.message);
          return null;
        }
      }

      var busy = false;
      async function control(method, path, body, label) {
        if (busy) return null;
        busy = true;
        $('controls').disabled = true;
        showError(null);
        var ok = false, data = null;
        try {
          data = await request(method, path, body);
          ok = true;
        } catch (e) {
          showError(label + ' failed — ' + (e && e.message ? e.message : String(e)));
        }
        if (ok && isObject(data) && Array.isArray(data.knobs)) applyState(data);
        await refreshState();
        busy = false;
        $('controls').disabled = false;
        return ok ? { data: data } : null;
      }

      $('knob-form').addEventListener('submit', async function (e) {
        e.preventDefault();
        var input = $('knob-input');
        var knob = input.value.trim();
        if (!knob) return;
        var rt = runtimeKnobs().filter(function (k) { return knobName(k) !== knobName(knob); });
        rt.push(knob);
        var r = await control('PUT', 'api/knobs', { knobs: rt, replace: false }, 'add knob ' + knob);
        if (r && input.value.trim() === knob) {
          input.value = '';
          $('knob-hint').textContent = '';
          $('knob-catalog').value = '';
        }
        input.focus();
      });
      $('knob-catalog').addEventListener('change', function (e) {
        var n = e.target.value;
        if (!n) return;
        $('knob-input').value = n;
        $('knob-hint').textContent = str(catalog[n]);
        $('knob-input').focus();
      });
      $('knob-input').addEventListener('input', function (e) {
        $('knob-hint').textContent = str(catalog[knobName(e.target.value.trim())]);
      });
      $('knobs-clear').addEventListener('click', function () {
        control('DELETE', 'api/knobs', null, 'clear run-time knobs');
      });
      Array.prototype.forEach.call(document.querySelectorAll('button.advance'), function (b) {
        b.addEventListener('click', function () {
          control('POST', 'api/clock', { advance: Number(b.getAttribute('data-advance')) }, 'advance the clock ' + b.textContent);
        });
      });
      $('clock-real').addEventListener('click', function () {
        var offset = Number(pick(lastState, 'clock_offset', 'clockOffset'));
        if (isFinite(offset) && offset !== 0) control('POST', 'api/clock', { advance: -offset }, 'clock back to real time');
      });
      $('profile-select').addEventListener('change', async function (e) {
        var p = e.target.value;
        var before = lastState ? str(lastState.profile) : '';
        if (!p || p === before) return;
        if (!window.confirm('Switch the mocks to the profile “' + p + '”? They forget their sessions, and the knobs set here go.')) {
          e.target.value = before;
          return;
        }
        var r = await control('PUT', 'api/profile', { profile: p }, 'switch profile to ' + p);
        if (r && lastState && str(lastState.profile) === p) {
          // Just after a switch the knobs in force are the new profile's own.
          baseKnobs = Array.isArray(lastState.knobs) ? lastState.knobs.map(str) : [];
          renderKnobs(lastState);
        } else if (!r && lastState) {
          e.target.value = str(lastState.profile);
        }
      });
      $('reset').addEventListener('click', async function () {
        if (!window.confirm('Reset the mocks? They forget sessions, flows and lockouts, and the traffic log is emptied.')) return;
        var r = await control('POST', 'api/reset', null, 'reset');
        if (r) clearExchanges('The mocks were reset and the traffic log emptied at ' + clock() + '.');
      });
      $('refresh-state').addEventListener('click', function () { showError(null); refreshState(); });

      // ---- the event stream
      function parse(data) {
        try { return JSON.parse(data); } catch (e) { return undefined; }
      }

      function onHello(o) {
        if (!isObject(o)) return;
        session = isObject(o.session) ? o.session : {};
        ready = isObject(o.ready) ? o.ready : null;
        var st = isObject(o.state) ? (isObject(o.state.state) ? o.state.state : o.state) : null;
        if (ready && Array.isArray(ready.knobs) && (!st || !ready.profile || str(st.profile) === str(ready.profile))) {
          baseKnobs = ready.knobs.map(str);
        }
        // The server re-sends the session's exchanges after hello: rebuild, keeping what was open.
        restoreScroll = follow ? null : scroller.scrollTop;
        if (restoreScroll !== null) setTimeout(function () { restoreScroll = null; }, 3000);
        clearExchanges(null);
        renderSession();
        if (st) applyState(st);
      }

      var handlers = {
        hello: onHello,
        exchange: addExchange,
        verdicts: applyVerdicts,
        state: applyState,
        reset: function () { clearExchanges('The traffic log was cleared at ' + clock() + '.'); }
      };

      function dispatch(name, data) {
        var fn = handlers[name];
        if (!fn || data === undefined) return;
        try {
          fn(data);
        } catch (err) {
          if (window.console) console.error('console page: ' + name + ' event', err);
        }
      }

      function scheduleRetry() {
        if (es) { es.close(); es = null; }
        if (stopped) return;
        var secs = Math.round(retryDelay / 1000);
        setStatus('down', 'disconnected — retrying in ' + secs + ' s', 'the event stream is closed; the page retries');
        clearTimeout(retryTimer);
        retryTimer = setTimeout(connect, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 15000);
      }

      function sessionEnded() {
        // After the final verdicts the server ends the stream and stops: keep what is shown.
        stopped = true;
        if (es) { es.close(); es = null; }
        setStatus('ended', 'session ended', 'samlharness serve has stopped; click to reconnect');
      }

      function connect() {
        clearTimeout(retryTimer);
        stopped = false;
        if (es) es.close();
        if (!window.EventSource) {
          setStatus('down', 'no EventSource in this browser');
          return;
        }
        setStatus('connecting', 'connecting');
        try {
          es = new EventSource('events');
        } catch (e) {
          scheduleRetry();
          return;
        }
        var mine = es;
        es.onopen = function () {
          if (mine !== es) return;
          retryDelay = 1000;
          setStatus('live', 'live', 'the event stream is open');
        };
        es.onerror = function () {
          if (mine !== es) return;
          if (finalSeen) { sessionEnded(); return; }
          if (es.readyState === 2) scheduleRetry();
          else setStatus('reconnecting', 'reconnecting', 'the event stream dropped; the browser reconnects');
        };
        Object.keys(handlers).forEach(function (name) {
          es.addEventListener(name, function (e) {
            if (mine !== es) return;
            dispatch(name, parse(e.data));
          });
        });
        es.onmessage = function (e) {
          if (mine !== es) return;
          var o = parse(e.data);
          if (isObject(o) && typeof (o.type || o.event) === 'string') dispatch(o.type || o.event, o.data !== undefined ? o.data : o);
        };
      }

      $('status').addEventListener('click', function () {
        if (stopped || !es) { finalSeen = false; retryDelay = 1000; connect(); }
      });

      updateCount();
      connect();
    })();
    </script>
    </body>
    </html>
    """#
}
