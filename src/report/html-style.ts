/** The HTML report's style sheet (inline: the page loads no external resource). */
export const CSS = `
:root{--ink:#1d2330;--muted:#5b6475;--line:#d8dde6;--bar:#3b6fb6;--bar2:#8fb0dd;--warn:#b4530f;--bg:#fff;--card:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:26px;margin:0 0 2px}h2{font-size:19px;margin:26px 0 8px}h3{font-size:15px;margin:18px 0 6px}
.sub,.meta,.note,figcaption,footer{color:var(--muted)}
.sub{margin:0 0 12px}.vs{font-style:italic}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--card);padding:0 3px;border-radius:3px}
.tag{display:inline-block;min-width:1.5em;text-align:center;border-radius:4px;background:var(--ink);color:#fff;font-size:13px;padding:0 5px;margin-right:4px}
.runs{display:grid;gap:28px}.runs-2{grid-template-columns:repeat(2,minmax(0,1fr))}
@media (max-width:980px){.runs-2{grid-template-columns:1fr}}
.run{min-width:0}
.headline{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 10px}
.card dt{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.card dd{margin:0}.card .value{display:block;font-size:24px;font-weight:650}
.card .note,.card .interval,.card .verdict{display:block;font-size:12px}
.card .interval{color:var(--ink)}.verdict{color:var(--warn);font-weight:600}
.card.warn{border-color:var(--warn)}.card.warn .value{color:var(--warn)}
.warn-text{color:var(--warn)}
figure.block{margin:0 0 8px}figcaption{font-size:13px;max-width:640px}
svg.chart{display:block;max-width:100%;height:auto;overflow:visible}
svg .bar{fill:var(--bar)}svg .grid{stroke:var(--line);stroke-width:1}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;fill:var(--ink)}
svg .axis,svg .axis-title,svg .legend{fill:var(--muted)}svg .label{font-size:12px}svg .value{font-weight:600}
svg .expected{stroke:var(--warn);stroke-width:2;stroke-dasharray:4 3}
svg .reference{stroke:var(--warn);stroke-width:2}
svg .diagonal{stroke:var(--muted);stroke-dasharray:5 4}
svg .dot{fill:var(--ink)}svg .count.empty{fill:var(--line)}
.absent{background:var(--card);border:1px dashed var(--line);border-radius:6px;padding:10px;color:var(--muted)}
table{border-collapse:collapse;font-size:14px}th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:right}
th[scope=row],thead th:first-child{text-align:left}caption{white-space:nowrap;text-align:left;color:var(--muted);font-size:13px;padding-bottom:4px}
table.bins{font-size:12px}table.gate{margin:8px 0}table.gate td.reason{text-align:left}table.gate tr.fail th{color:#8e1c1c}table.gate tr.pass th{color:#1b5e20}tr.empty td{color:var(--muted)}
.paired-grid{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.paired-table td{text-align:center;min-width:110px;padding:10px}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}.facts dt{font-weight:600}.facts dd{margin:0}
.verdict.overall{font-size:15px}
.verdict-line{margin:10px 0 14px;padding:10px 14px;border-radius:8px;border-left:6px solid;font-size:17px;font-weight:650}
.verdict-line.fail{background:#fdecea;border-color:#c62828;color:#8e1c1c}
.verdict-line.warn{background:#fff4e0;border-color:#d08000;color:#7a4a00}
.verdict-line.pass{background:#e8f5e9;border-color:#2e7d32;color:#1b5e20}
.verdict-line.unknown{background:var(--card);border-color:var(--muted);color:var(--muted)}
.run .verdict-line{font-size:15px}
details{margin-top:6px;font-size:13px}
footer{margin-top:32px;border-top:1px solid var(--line);padding-top:8px;font-size:13px}
@media print{main{max-width:none}details{display:none}}
`

