/**
 * The two pages' HTML: fixed shells with no data in them. Each loads its script and the stylesheet
 * from /assets; the script fetches the API and builds the page with textContent, so nothing a
 * session wrote is ever parsed as HTML.
 */
function shell(title: string, script: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/console.css">
<script type="module" src="/assets/${script}"></script>
</head>
<body>
<header><a href="/" class="brand">agentd console</a><span id="live" class="live">…</span></header>
<main>
${body}
</main>
</body>
</html>
`;
}

export const FLEET_PAGE = shell(
  'agentd: fleet',
  'fleet.js',
  `<h1>Sessions</h1>
<form id="filters" class="filters">
  <label>status <select name="status">
    <option value="">any</option>
    <option>running</option>
    <option>waiting_for_message</option>
    <option>waiting_for_approval</option>
    <option>completed</option>
    <option>failed</option>
    <option>cancelled</option>
    <option>terminated</option>
    <option>timed_out</option>
  </select></label>
  <label>model <input name="model" placeholder="any" size="18"></label>
  <button type="submit">filter</button>
</form>
<p id="error" class="error" hidden></p>
<table id="fleet" class="fleet">
  <thead><tr><th>session</th><th>status</th><th>model</th><th>turn / step</th><th>context</th><th>cost</th><th>why paused</th><th>started</th></tr></thead>
  <tbody></tbody>
</table>
<p class="pager"><button id="first" type="button">first page</button> <button id="next" type="button">next page</button></p>`,
);

export const SESSION_PAGE = shell(
  'agentd: session',
  'session.js',
  `<h1 id="title">session</h1>
<p id="error" class="error" hidden></p>
<section class="summary">
  <div><h2>Context</h2><div id="gauge"></div></div>
  <div><h2>Spend and budget</h2><dl id="spend"></dl></div>
  <div><h2>Status</h2><dl id="status"></dl></div>
</section>
<section id="breaker" class="breaker" hidden></section>
<section id="tree" hidden>
  <h2>Parent and children</h2>
  <p id="parent"></p>
  <ul id="children"></ul>
</section>
<section>
  <h2>Controls</h2>
  <div class="controls">
    <form id="message-form"><textarea name="text" rows="2" cols="50" placeholder="message for the next turn"></textarea><label><input type="checkbox" name="now"> now (before the next model call)</label><button type="submit">send message</button></form>
    <form id="interrupt-form"><input name="reason" size="30" placeholder="why"><label><input type="checkbox" name="continue"> then go on</label><button type="submit">interrupt step</button></form>
    <form id="compact-form"><button type="submit">compact now</button></form>
    <form id="approve-form">
      <label>max steps <input name="maxSteps" inputmode="numeric" size="6"></label>
      <label>max total tokens <input name="maxTotalTokens" inputmode="numeric" size="9"></label>
      <label>max cost USD <input name="maxCostUsd" inputmode="decimal" size="6"></label>
      <label>max repeated tool calls <input name="maxRepeatedToolCalls" inputmode="numeric" size="4"></label>
      <button type="submit">approve</button>
    </form>
    <form id="cancel-form"><button type="submit" class="danger">cancel session</button></form>
  </div>
  <p id="control-result" class="result" hidden></p>
</section>
<section>
  <h2>Context over time</h2>
  <img id="chart" alt="context tokens per step, with the window, the trigger and each compaction">
</section>
<section>
  <h2>Compaction notices and warnings</h2>
  <ul id="notices" class="notices"></ul>
  <ul id="warnings" class="warnings"></ul>
</section>
<section class="memory">
  <div><h2>Session memory</h2><pre id="memory" class="block"></pre></div>
  <div><h2>Current summary</h2><pre id="current-summary" class="block"></pre></div>
</section>
<section>
  <h2>Transcript</h2>
  <ol id="transcript" class="transcript"></ol>
  <p><button id="more" type="button" hidden>more</button></p>
</section>`,
);
