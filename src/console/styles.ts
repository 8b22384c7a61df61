/** The console's stylesheet, served as /assets/console.css (tsc copies no .css file; this needs no build step of its own). */
export const CONSOLE_CSS = `
:root { font-family: system-ui, sans-serif; font-size: 14px; color: #1c2833; background: #f7f9fa; }
body { margin: 0; }
header { display: flex; justify-content: space-between; align-items: center; padding: 8px 20px; background: #1c2833; color: #fff; }
header a.brand { color: #fff; font-weight: 600; text-decoration: none; }
.live { font-size: 12px; color: #abebc6; }
.live.stale { color: #f5b7b1; }
main { padding: 12px 20px 40px; max-width: 1200px; }
h1 { font-size: 20px; margin: 8px 0 12px; word-break: break-all; }
h2 { font-size: 15px; margin: 16px 0 6px; }
a { color: #1f618d; }
.error { color: #922b21; background: #fdedec; padding: 6px 10px; border-radius: 4px; }
.filters { display: flex; gap: 12px; align-items: center; margin-bottom: 10px; }
table.fleet { border-collapse: collapse; width: 100%; background: #fff; }
table.fleet th, table.fleet td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e5e8e8; vertical-align: top; }
table.fleet th { background: #eaeded; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.why { max-width: 260px; color: #7e5109; }
.empty { color: #7f8c8d; }
.status { padding: 1px 6px; border-radius: 8px; background: #d6eaf8; white-space: nowrap; }
.status-waiting_for_approval { background: #fad7a0; font-weight: 600; }
.status-waiting_for_message { background: #d5f5e3; }
.status-failed, .status-terminated { background: #f5b7b1; }
.status-completed, .status-cancelled { background: #e5e8e8; }
.gauge { min-width: 180px; }
.gauge-track { position: relative; height: 10px; background: #e5e8e8; border-radius: 5px; overflow: visible; }
.gauge-fill { height: 100%; border-radius: 5px; background: #2e86c1; }
.gauge-fill.high { background: #f39c12; }
.gauge-fill.over { background: #c0392b; }
.gauge-trigger { position: absolute; top: -3px; width: 2px; height: 16px; background: #e67e22; }
.gauge-label { font-size: 11px; color: #566573; }
.summary, .memory { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 16px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
dt { color: #566573; }
dd { margin: 0; }
dl.paused dd { color: #7e5109; }
.breaker { margin: 12px 0; padding: 10px 14px; background: #c0392b; color: #fff; font-weight: 600; border-radius: 4px; }
.breaker-inline { color: #c0392b; font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end; }
.controls form { display: flex; gap: 6px; align-items: flex-end; flex-wrap: wrap; background: #fff; padding: 8px; border: 1px solid #e5e8e8; border-radius: 4px; }
button { cursor: pointer; }
button.danger { color: #922b21; }
.result { background: #eafaf1; padding: 6px 10px; border-radius: 4px; }
.result.error { background: #fdedec; color: #922b21; }
#chart { max-width: 100%; height: auto; border: 1px solid #e5e8e8; background: #fff; }
.notices li.failed { color: #922b21; }
.notice-cost, .cache-hits { color: #5d6d7e; font-size: 0.9em; }
.warnings li { color: #7e5109; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
pre.block { background: #fff; border: 1px solid #e5e8e8; padding: 8px; max-height: 320px; overflow: auto; }
ol.transcript { list-style: none; padding: 0; }
.entry { background: #fff; border: 1px solid #e5e8e8; border-radius: 4px; margin: 6px 0; padding: 6px 10px; }
.entry:target { outline: 2px solid #f39c12; }
.entry.summary, .entry.memory { border-left: 4px solid #8e44ad; }
.entry.view { border-left: 4px solid #2e86c1; }
.entry.error { border-left: 4px solid #c0392b; }
.entry-head { font-size: 12px; color: #566573; }
.boundary { font-size: 12px; font-weight: 600; color: #8e44ad; border-top: 2px dashed #8e44ad; padding-top: 4px; margin-bottom: 4px; }
pre.call { color: #1f618d; }
/* Long tool output scrolls inside its entry, so the transcript stays readable at a glance. */
pre.body { max-height: 9em; overflow: auto; background: #fbfcfc; }
`;
