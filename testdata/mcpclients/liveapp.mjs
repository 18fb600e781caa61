// The live view as an MCP App (docs/mcp.md#the-live-view-in-the-chat), checked with the
// MCP Apps package itself (@modelcontextprotocol/ext-apps, pinned in this folder).
// test/e2e's TestLiveViewAppRendersTheStream runs it as
//   node liveapp.mjs check URL    the TypeScript SDK 1.x client over streamable HTTP at
//                                 URL (and the 2.x client in the 2026-07-28 era, for the
//                                 listing), declaring the extension: the session start tool
//                                 names the app, the resource reads back as one, a
//                                 session starts; prints the resource and the result as
//                                 JSON on the last line
//   node liveapp.mjs bridge FILE  writes the extension's host side (AppBridge and its
//                                 postMessage transport) as one browser module to FILE
// Each check prints a line; check exits 1 if any failed.
import { rmSync, writeFileSync } from "node:fs";

const [mode, arg] = process.argv.slice(2);

if (mode === "bridge") {
  const { build } = await import("rolldown");
  const entry = new URL("./.bridge-entry.mjs", import.meta.url);
  writeFileSync(entry, 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";\n');
  try {
    await build({ input: entry.pathname, platform: "browser", output: { file: arg, format: "esm" }, logLevel: "silent" });
  } finally {
    rmSync(entry);
  }
  process.exit(0);
}
if (mode !== "check") {
  console.error("usage: node liveapp.mjs check URL | bridge FILE");
  process.exit(2);
}

const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { McpUiToolMetaSchema, McpUiResourceMetaSchema, McpUiToolResultNotificationSchema } = await import("@modelcontextprotocol/ext-apps");
const { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } = await import("@modelcontextprotocol/ext-apps/server");
const { getToolUiResourceUri } = await import("@modelcontextprotocol/ext-apps/app-bridge");

let failures = 0;
function check(ok, what, detail) {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === undefined ? "" : ": " + detail}`);
}
const parses = (schema, v) => {
  const r = schema.safeParse(v);
  return r.success ? "" : JSON.stringify(r.error.issues);
};

const startTool = "mcp_W365ComputerUse_StartSession";
const appUri = "ui://w365/live-view";
const list = async (capabilities) => {
  const client = new Client({ name: "w365-liveapp", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(arg)));
  return [client, (await client.listTools()).tools];
};

// A client that does not render apps is not sent the link.
{
  const [client, tools] = await list({});
  const t = tools.find((t) => t.name === startTool);
  check(t && getToolUiResourceUri(t) === undefined && t._meta === undefined, "no app link for a client without the extension", JSON.stringify(t?._meta));
  await client.close();
}

const uiCapability = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

// The stateless 2026-07-28 era has no initialize: the 2.x client sends its capabilities
// with each request, and the list follows them there too.
{
  const v2 = await import("@modelcontextprotocol/client");
  for (const capabilities of [{}, uiCapability]) {
    const c = new v2.Client({ name: "w365-liveapp", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await c.connect(new v2.StreamableHTTPClientTransport(new URL(arg)));
    const t = (await c.listTools()).tools.find((t) => t.name === startTool);
    const want = capabilities.extensions ? appUri : undefined;
    check(c.getNegotiatedProtocolVersion() === "2026-07-28" && getToolUiResourceUri(t) === want,
      `2026-07-28 era, ${want ? "with" : "without"} the extension: ${want ? "the link" : "no link"}`, JSON.stringify(t?._meta));
    await c.close();
  }
}

const [client, tools] = await list(uiCapability);
const tool = tools.find((t) => t.name === startTool);
check(tool !== undefined, `${startTool} is listed`);
check(getToolUiResourceUri(tool) === appUri, "the host's reading of the tool's UI names the app", JSON.stringify(tool._meta));
check(tool._meta?.[RESOURCE_URI_META_KEY] === undefined, `the deprecated flat ${RESOURCE_URI_META_KEY} is not sent`, JSON.stringify(tool._meta));
let bad = parses(McpUiToolMetaSchema, tool._meta?.ui);
check(!bad, "the tool's _meta.ui is a McpUiToolMeta", bad);
const linked = tools.filter((t) => getToolUiResourceUri(t)).map((t) => t.name);
console.log(`tools with the app: ${linked.join(", ")}`);

const { resources } = await client.listResources();
const listed = resources.find((r) => r.uri === appUri);
check(listed?.mimeType === RESOURCE_MIME_TYPE, "resources/list has the app with the MCP App MIME type", JSON.stringify(listed));

const read = await client.readResource({ uri: appUri });
const content = read.contents[0];
check(read.contents.length === 1 && content.uri === appUri, "resources/read gives the app", JSON.stringify(read.contents.map((c) => c.uri)));
check(content.mimeType === RESOURCE_MIME_TYPE, `its mimeType is ${RESOURCE_MIME_TYPE}`, content.mimeType);
check(/^<!doctype html>/i.test(content.text ?? ""), "its text is an HTML document", (content.text ?? "").slice(0, 40));
check(!/<(script|link|img)[^>]+(src|href)=["']?https?:/i.test(content.text ?? ""), "it loads nothing from elsewhere (no CDN)");
bad = parses(McpUiResourceMetaSchema, content._meta?.ui);
check(content._meta?.ui && !bad, "its _meta.ui is a McpUiResourceMeta", bad);
const origin = new URL(arg).origin;
const csp = content._meta?.ui?.csp ?? {};
check(csp.resourceDomains?.includes(origin) && csp.connectDomains?.includes(origin), `its CSP names the host's origin ${origin}`, JSON.stringify(csp));

const result = await client.callTool({ name: startTool, arguments: {} });
bad = parses(McpUiToolResultNotificationSchema, { method: "ui/notifications/tool-result", params: result });
check(!result.isError && !bad, "the tool's result is the app's ui/notifications/tool-result", bad || JSON.stringify(result).slice(0, 300));
check(result.structuredContent?.liveViewUrl?.startsWith(origin + "/live/"), "its structuredContent has the liveViewUrl", JSON.stringify(result.structuredContent));
await client.close();

console.log(JSON.stringify({ resource: content, result }));
process.exit(failures ? 1 : 0);
