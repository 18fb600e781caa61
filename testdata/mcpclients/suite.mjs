// The MCP clients people run, against the built w365 binary. cmd/w365's
// TestOfficialMCPClients runs this file (after npm ci of this folder's lock) as
//   node suite.mjs stdio|http|defaultenv [v1|v2-auto|v2-pin]
// with the TypeScript SDK 1.x client (v1, the default), or the 2.x client
// (@modelcontextprotocol/client) negotiating the era (v2-auto) or pinned to 2026-07-28
// (v2-pin). It prints one line per check and exits 1 if any failed.
//
// Environment: W365_BIN (the binary), W365_SERVER_ENV (JSON: the stdio server's
// environment), W365_HTTP_URL (http mode), W365_PAGE_URL (a test page on loopback).
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const sdk = process.argv[3] ?? "v1";
const v2 = sdk.startsWith("v2");
const { Client, StdioClientTransport, StreamableHTTPClientTransport } = v2
  ? { ...(await import("@modelcontextprotocol/client")), ...(await import("@modelcontextprotocol/client/stdio")) }
  : {
      ...(await import("@modelcontextprotocol/sdk/client/index.js")),
      ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
      ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
    };
// The era the client must end up in.
const wantEra = sdk === "v1" ? "2025-11-25" : "2026-07-28";
// The Mcp-Param-Session values the client sent (over HTTP).
const sessionHeaders = [];
const recordingFetch = (url, init) => {
  const v = new Headers(init?.headers).get("mcp-param-session");
  if (v) sessionHeaders.push(v);
  return fetch(url, init);
};

const mode = process.argv[2];
// A loaded shared machine can be slow; the SDK's default is 60 s.
const timeout = 180000;
const bin = process.env.W365_BIN;
let failures = 0;

function check(ok, what, detail) {
  if (ok) {
    console.log(`ok   ${what}`);
  } else {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? "" : ": " + detail}`);
  }
}

function text(res) {
  return (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function connect(transport) {
  const negotiation = { "v2-auto": { mode: "auto" }, "v2-pin": { mode: { pin: "2026-07-28" } } }[sdk];
  const client = new Client({ name: "w365-mcpclients", version: "1.0.0" }, negotiation ? { versionNegotiation: negotiation } : {});
  await client.connect(transport);
  if (v2) {
    const era = client.getNegotiatedProtocolVersion();
    check(era === wantEra, `${sdk} negotiated ${era}`, `want ${wantEra}`);
  }
  return client;
}

// call is callTool in the signature of either major: 1.x takes (params, resultSchema,
// options), 2.x (params, options).
function call(client, params, options) {
  return v2 ? client.callTool(params, options) : client.callTool(params, undefined, options);
}

async function listAll(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

// The whole suite for one transport. Over HTTP every browser tool needs the id of a
// browser session the client made; over stdio it is optional.
async function full(client, http) {
  const tools = await listAll(client);
  const byName = new Map(tools.map((t) => [t.name, t]));
  console.log(`tools/list: ${tools.length} tools, ${JSON.stringify({ tools }).length} bytes`);
  check(!byName.has("start_session") && byName.has("mcp_W365ComputerUse_StartSession"),
    "the session aliases are legacy names only");

  // Every schema compiles under ajv's strict mode (draft 2020-12, MCP's default dialect).
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // MCP's own annotation (2026-07-28): the argument also travels as an Mcp-Param- header.
  ajv.addKeyword({ keyword: "x-mcp-header", schemaType: "string" });
  const validators = new Map();
  let compiled = 0;
  for (const t of tools) {
    for (const kind of ["inputSchema", "outputSchema"]) {
      if (!t[kind]) continue;
      try {
        const v = ajv.compile(t[kind]);
        if (kind === "outputSchema") validators.set(t.name, v);
        compiled++;
      } catch (e) {
        check(false, `ajv strict compiles ${t.name}.${kind}`, e.message);
      }
    }
  }
  check(compiled > tools.length, `ajv strict compiled ${compiled} schemas`);

  let bs;
  if (http) {
    const made = await call(client, { name: "create_browser_session", arguments: {} }, { timeout });
    bs = made.structuredContent?.browserSessionId;
    check(!made.isError && typeof bs === "string", "create_browser_session gives a browserSessionId", text(made));
    const bare = await call(client, { name: "browser_list_tabs", arguments: {} }, { timeout });
    check(bare.isError && text(bare).startsWith("INVALID_ARGUMENT: "), "over HTTP a browser tool without browserSessionId is refused", text(bare));
  }
  const scoped = (name, args) => (bs && name.startsWith("browser_") ? { ...args, browserSessionId: bs } : args);

  // Successful calls: the SDK itself validates structuredContent against the output
  // schema (it throws on a mismatch); ajv checks again, and the text must be there.
  const page = process.env.W365_PAGE_URL;
  const calls = [
    ["get_screen_size", {}],
    ["move_mouse", { x: 400, y: 300 }],
    ["get_cursor_position", {}],
    ["click", { x: 410, y: 310, button: "right" }],
    ["scroll", { x: 400, y: 300, deltaY: 1 }],
    ["press_keys", { keys: ["shift"] }],
    ["take_screenshot", { format: "jpeg" }],
    ["zoom_region", { x: 0, y: 0, width: 200, height: 100 }],
    ["list_windows", {}],
    ["list_processes", { maxCount: 5 }],
    ["get_system_info", {}],
    ["clipboard_write", { text: "w365 clip" }],
    ["clipboard_read", {}],
    ["wait_milliseconds", { ms: 10 }],
    ["list_sessions", {}],
    ["mcp_W365ComputerUse_GetSessionDetails", { sessionId: "default" }],
    ["execute_shell_command", { command: "ls /" }],
    ["execute_python_code", { code: "print(6*7)" }],
    ["browser_navigate", { url: `${page}/form.html` }],
    ["browser_get_url", {}],
    ["browser_get_title", {}],
    ["browser_snapshot", {}],
    ["browser_find", { role: "button" }],
    ["browser_get_text", {}],
    ["browser_query_text", { selector: "h1" }],
    ["browser_type", { selector: "#text", text: "typed" }],
    ["browser_eval_js", { expression: "document.querySelector('#text').value" }],
    ["browser_list_tabs", {}],
    ["analyze_screen", {}],
  ];
  for (const [name, args] of calls) {
    let res;
    try {
      res = await call(client, { name, arguments: scoped(name, args) }, { timeout });
    } catch (e) {
      check(false, `${name} resolves`, e.message);
      continue;
    }
    if (res.isError) {
      check(false, `${name} succeeds`, text(res));
      continue;
    }
    const v = validators.get(name);
    const valid = !v || res.structuredContent === undefined || v(res.structuredContent);
    check(valid, `${name}: structured result validates`, v && JSON.stringify(v.errors));
    const hasImage = (res.content ?? []).some((c) => c.type === "image");
    check(text(res).length > 0 || hasImage, `${name}: has content`);
    if (name === "take_screenshot") {
      // The image is also a resource of the session: read back byte for byte.
      const img = res.content.find((c) => c.type === "image");
      const link = res.content.find((c) => c.type === "resource_link");
      const read = link && (await client.readResource({ uri: link.uri }));
      const blob = read?.contents?.[0]?.blob;
      check(img && blob === img.data && link.size === Buffer.from(img.data, "base64").length,
        "take_screenshot: resources/read of its resource_link gives the inline image", JSON.stringify(link));
    }
    if (name === "browser_eval_js") check(text(res) === "typed", "browser_type typed into the field", text(res));
    if (name === "browser_snapshot") {
      const wire = JSON.stringify(res).length;
      check(wire <= 1.1 * text(res).length + 512, `snapshot wire ${wire} B within 1.1x its text ${text(res).length} B`);
    }
  }

  if (bs && v2) {
    check(sessionHeaders.includes(bs), "the browser session went as the Mcp-Param-Session header too", JSON.stringify(sessionHeaders.slice(0, 5)));
  }

  // Errors: each resolves (no exception) with isError, and a text whose first line is
  // `CODE: message`, then retryable, hint and correlation id. No structuredContent.
  const errors = [
    ["move_mouse", { x: 0, y: 0 }, "FAILSAFE"],
    ["activate_window", { title: "no window has this title 7f3a" }, "NOT_FOUND"],
    ["click", { x: 10, y: 10, button: "sideways" }, "INVALID_ARGUMENT"],
    ["wait_milliseconds", { ms: "soon" }, "INVALID_ARGUMENT"],
    ["execute_shell_command", { command: "curl http://127.0.0.1/" }, "BLOCKED_BY_POLICY"],
    ["browser_wait_for", { text: "this text never appears 7f3a", timeoutMs: 300 }, "TIMEOUT"],
    ["browser_click_ref", { snapshotId: "s-none", ref: "e1" }, "SNAPSHOT_EXPIRED"],
    ["mcp_W365ComputerUse_GetSessionDetails", { sessionId: "no-such-session" }, "NOT_FOUND"],
  ];
  for (const [name, args, code] of errors) {
    let res;
    try {
      res = await call(client, { name, arguments: scoped(name, args) }, { timeout });
    } catch (e) {
      check(false, `${name} -> ${code} resolves`, e.message);
      continue;
    }
    const t = text(res);
    check(res.isError === true && t.startsWith(code + ": "), `${name} -> isError, text starts "${code}: "`, t);
    check(/\nretryable: (true|false)/.test(t) && /\ncorrelationId: [0-9a-f]+/.test(t),
      `${name} -> retryable and correlationId readable`, t);
    check(res.structuredContent === undefined, `${name} -> no structuredContent`);
  }

  // Cancellation: an aborted call rejects at once, and the session goes on.
  const ac = new AbortController();
  const slow = call(client, { name: "wait_milliseconds", arguments: { ms: 5000 } }, { signal: ac.signal, timeout });
  setTimeout(() => ac.abort("test cancels"), 200);
  let cancelled = false;
  try {
    await slow;
  } catch {
    cancelled = true;
  }
  check(cancelled, "a cancelled call rejects");
  const after = await call(client, { name: "get_cursor_position", arguments: {} });
  check(!after.isError, "the session answers after a cancel", text(after));

  // Progress: a call with a progress token succeeds, and whatever progress the server
  // sends is well formed and rises.
  const seen = [];
  const res = await call(client, { name: "wait_milliseconds", arguments: { ms: 1500 } }, {
    timeout,
    onprogress: (p) => seen.push(p),
  });
  check(!res.isError, "a call with a progress token succeeds", text(res));
  check(seen.every((p, i) => typeof p.progress === "number" && (i === 0 || p.progress >= seen[i - 1].progress)),
    `progress notifications are well formed (${seen.length} received)`, JSON.stringify(seen));
  check(seen.length > 0, "progress is reported");
  if (bs) {
    const closed = await call(client, { name: "close_browser_session", arguments: { browserSessionId: bs } }, { timeout });
    check(!closed.isError, "close_browser_session ends it", text(closed));
  }
}

// The user's terminal made a host (a CLI call); an agent's client then starts
// `serve --mcp` with the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM,
// USER: no DISPLAY, no XDG_RUNTIME_DIR) and must land on that host: its session there
// (default-agent, its own: docs/sessions.md) is one the user's CLI reaches by id.
async function defaultEnv() {
  const keep = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
  const env = Object.fromEntries(keep.filter((k) => process.env[k]).map((k) => [k, process.env[k]]));
  const cli = spawnSync(bin, ["get-screen-size"], { env, encoding: "utf8" });
  check(cli.status === 0, "a CLI call starts a host", cli.stderr);
  const uid = process.getuid();
  const pid = Number(readFileSync(`/run/user/${uid}/w365/host.pid`, "utf8").trim());
  check(pid > 0, `the host lives in /run/user/${uid}/w365 (pid ${pid})`);
  try {
    // No env option: the SDK passes only its default inherited variables.
    const client = await connect(new StdioClientTransport({ command: bin, args: ["serve", "--mcp"], stderr: "inherit" }));
    const first = await call(client, { name: "get_screen_size", arguments: {} });
    check(!first.isError, "the agent's first call starts its session", text(first));
    const moved = spawnSync(bin, ["--session", "default-agent", "move-mouse", "321", "123"], { env, encoding: "utf8" });
    check(moved.status === 0, "the CLI moves the mouse in the agent's session", moved.stderr);
    const res = await call(client, { name: "get_cursor_position", arguments: {} });
    check(res.structuredContent?.cursorX === 321 && res.structuredContent?.cursorY === 123,
      "the agent sees the cursor where the CLI put it", JSON.stringify(res.structuredContent));
    const sl = await call(client, { name: "list_sessions", arguments: {} });
    check(sl.structuredContent?.sessions?.some((s) => s.hostPid === pid), "the agent's session is the CLI host's",
      JSON.stringify(sl.structuredContent));
    await client.close();
  } finally {
    process.kill(pid, "SIGTERM");
  }
}

try {
  if (mode === "stdio") {
    const env = JSON.parse(process.env.W365_SERVER_ENV);
    await full(await connect(new StdioClientTransport({ command: bin, args: ["serve", "--mcp"], env, stderr: "inherit" })), false);
  } else if (mode === "http") {
    await full(await connect(new StreamableHTTPClientTransport(new URL(process.env.W365_HTTP_URL), { fetch: recordingFetch })), true);
  } else if (mode === "defaultenv") {
    await defaultEnv();
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} catch (e) {
  check(false, "suite ran to the end", e.stack);
}
console.log(failures === 0 ? "all checks passed" : `${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
