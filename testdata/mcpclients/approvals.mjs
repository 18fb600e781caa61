// Approvals asked of the TypeScript SDK client by form elicitation (docs/security.md#approvals).
// test/e2e's TestApprovalAskedOfTSClients runs it as
//   node approvals.mjs v1|v2
// against `w365 serve --mcp --agent-acts-as-you` under a policy that asks approval for
// move_mouse (rule "mouse"): the client declares form elicitation and answers approve,
// then declines, then answers deny. 2.x negotiates the 2025 era ("legacy"), in which the
// server may ask the client. One line per check; exit 1 if any failed.
//
// Environment: W365_BIN (the binary), W365_SERVER_ENV (JSON: the server's environment).
const sdk = process.argv[2] ?? "v1";
const v2 = sdk === "v2";
const { Client, StdioClientTransport, ElicitRequestSchema } = v2
  ? { ...(await import("@modelcontextprotocol/client")), ...(await import("@modelcontextprotocol/client/stdio")) }
  : {
      ...(await import("@modelcontextprotocol/sdk/client/index.js")),
      ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
      ...(await import("@modelcontextprotocol/sdk/types.js")),
    };

let failures = 0;
function check(ok, what, detail) {
  console.log(ok ? `ok   ${what}` : `FAIL ${what}${detail === undefined ? "" : ": " + detail}`);
  if (!ok) failures++;
}
const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const options = { capabilities: { elicitation: { form: {} } } };
if (v2) options.versionNegotiation = { mode: "legacy" };
const client = new Client({ name: "w365-approvals", version: "1.0.0" }, options);

// The answers, in order, and the forms the server sent.
const answers = [
  { action: "accept", content: { decision: "approve" } },
  { action: "decline" },
  { action: "accept", content: { decision: "deny" } },
];
const forms = [];
const onElicit = async (request) => {
  forms.push(request.params);
  return answers.shift() ?? { action: "cancel" };
};
if (v2) client.setRequestHandler("elicitation/create", onElicit);
else client.setRequestHandler(ElicitRequestSchema, onElicit);

const env = JSON.parse(process.env.W365_SERVER_ENV);
await client.connect(new StdioClientTransport({ command: process.env.W365_BIN, args: ["serve", "--mcp", "--agent-acts-as-you"], env, stderr: "inherit" }));
const call = (name, args) => (v2 ? client.callTool({ name, arguments: args }) : client.callTool({ name, arguments: args }, undefined, { timeout: 120000 }));
const cursor = async () => {
  const r = await call("get_cursor_position", {});
  return `${r.structuredContent?.cursorX} ${r.structuredContent?.cursorY}`;
};

let res = await call("move_mouse", { x: 211, y: 222 });
check(!res.isError, `${sdk}: approved move_mouse runs`, text(res));
const form = forms[0];
check(form && (form.mode ?? "form") === "form" && form.message.includes('rule "mouse"') && form.message.includes("x=211"),
  `${sdk}: the form names the rule and the arguments`, JSON.stringify(form));
const choices = form?.requestedSchema?.properties?.decision?.oneOf?.map((o) => o.const) ?? [];
check(["approve", "approve-session", "deny"].every((c) => choices.includes(c)), `${sdk}: the form offers approve, approve for this session, deny`, JSON.stringify(choices));
check((await cursor()) === "211 222", `${sdk}: the cursor moved`);

res = await call("move_mouse", { x: 233, y: 244 });
check(res.isError && text(res).startsWith("BLOCKED_BY_POLICY") && text(res).includes("denied by client"), `${sdk}: a declined form denies`, text(res));
res = await call("move_mouse", { x: 255, y: 266 });
check(res.isError && text(res).startsWith("BLOCKED_BY_POLICY"), `${sdk}: deny denies`, text(res));
check(forms.length === 3, `${sdk}: asked once a call`, forms.length);
check((await cursor()) === "211 222", `${sdk}: the denied calls did nothing`);

await client.close();
process.exit(failures ? 1 : 0);
