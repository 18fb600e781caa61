// hand_over_to_person with the official TypeScript clients, against serve --http. The Go
// test TestHandOverWithTheTypeScriptClients runs it as
//   node handover.mjs v1|v2|v2-auto accept|decline|none|timeout
// with the 1.x SDK (v1), the 2.x client in the 2025 era (v2: no negotiation) or in the
// 2026-07-28 stateless era (v2-auto, which has no server-to-client requests). The client
// answers URL elicitation (accept), declines it (decline), or declares no elicitation (none,
// timeout). When a person must act it prints "LINK <url>": the test opens the link in
// headless Chromium and presses Hand back with the note "done by the person". It prints one
// line per check and exits 1 if any failed.
//
// Environment: W365_HTTP_URL.
const [sdk, mode] = process.argv.slice(2);
const v2 = sdk.startsWith("v2");
const lib = v2
  ? await import("@modelcontextprotocol/client")
  : {
      ...(await import("@modelcontextprotocol/sdk/client/index.js")),
      ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
      ...(await import("@modelcontextprotocol/sdk/types.js")),
    };
let failures = 0;
function check(ok, what, detail) {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === undefined ? "" : ": " + detail}`);
}
const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const linkIn = (s) => (s.match(/https?:\/\/\S+\?token=[0-9a-f]+/) ?? [])[0];

const elicits = mode === "accept" || mode === "decline";
const options = elicits ? { capabilities: { elicitation: { url: {} } } } : {};
if (sdk === "v2-auto") options.versionNegotiation = { mode: "auto" };
const client = new lib.Client({ name: "w365-handover", version: "1.0.0" }, options);
const asked = [];
if (elicits) {
  const handler = async (req) => {
    const p = req.params;
    asked.push(p);
    if (mode === "accept") console.log(`LINK ${p.url}`);
    return { action: mode };
  };
  if (v2) client.setRequestHandler("elicitation/create", handler);
  else client.setRequestHandler(lib.ElicitRequestSchema, handler);
}
await client.connect(new lib.StreamableHTTPClientTransport(new URL(process.env.W365_HTTP_URL)));

let progress = [];
const call = (args) => {
  const params = { name: "hand_over_to_person", arguments: args };
  const opts = { timeout: 300000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p.message) };
  return v2 ? client.callTool(params, opts) : client.callTool(params, undefined, opts);
};
const timeoutSeconds = mode === "timeout" ? 10 : 120;
const started = Date.now();
let res = await call({ reason: "a second factor only you have", instructions: "sign in, then press Hand back", timeoutSeconds });
let sc = res.structuredContent ?? {};
check(!res.isError, `${sdk} ${mode}: the call answers`, text(res));

// Where the client was asked, the link went out as a URL elicitation.
const wantAsked = elicits && sdk !== "v2-auto";
check(asked.length === (wantAsked ? 1 : 0), `${sdk} ${mode}: ${wantAsked ? "one" : "no"} URL elicitation`, JSON.stringify(asked));
if (asked.length) {
  check(asked[0].mode === "url" && asked[0].elicitationId === sc.handoverId && /a second factor/.test(asked[0].message),
    "the elicitation is URL mode with the hand-over's id and reason", JSON.stringify(asked[0]));
}

if (mode === "accept" && sdk !== "v2-auto") {
  check(sc.status === "handedBack", "accepted: the call waits until the hand-back", JSON.stringify(sc));
  check(sc.note === "done by the person", "the person's note comes back", sc.note);
  check(!sc.liveViewUrl, "the dead link is not returned", sc.liveViewUrl);
  check(progress.some((m) => /waiting for a person to hand back/.test(m)), "progress while waiting", JSON.stringify(progress));
  check((await fetch(asked[0].url)).status === 403, "the one-time link died with the hand-back");
} else {
  const want = mode === "decline" && sdk !== "v2-auto" ? "declined" : "waiting";
  const link = linkIn(text(res));
  check(sc.status === want, `status ${want}`, JSON.stringify(sc));
  check(link && link === sc.liveViewUrl, "the link is in the text", text(res));
  if (asked.length) check(link === asked[0].url, "the text's link is the elicited one", link);
  if (mode !== "decline" && !asked.length) check(Date.now() - started < 30000, "without elicitation the call answers at once", `${Date.now() - started} ms`);
  check(/handoverId/.test(text(res)) && text(res).includes(sc.handoverId), "the text says how to wait", text(res));
  // The person gets the link from the text alone; the agent waits again.
  if (mode !== "timeout") console.log(`LINK ${link}`);
  progress = [];
  res = await call({ reason: "a second factor only you have", handoverId: sc.handoverId });
  const again = res.structuredContent ?? {};
  if (mode === "timeout") {
    check(again.status === "timedOut" && again.waitedMs >= 9000, "nobody hands back: timedOut after the timeout", JSON.stringify(again));
    check((await fetch(link)).status === 403, "the one-time link died with the timeout");
  } else {
    check(again.status === "handedBack" && again.note === "done by the person", "waiting with handoverId: handedBack with the note", JSON.stringify(again));
    check((await fetch(link)).status === 403, "the one-time link died with the hand-back");
  }
}
await client.close();
process.exit(failures ? 1 : 0);
