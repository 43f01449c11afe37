#!/usr/bin/env node
// A third-party MCP client for transport tests: the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json) drives a server over real stdio.
//
// Usage:
//   node client.mjs [--tool NAME] [--args JSON] [--env JSON] [--cwd DIR] [--timeout-ms N] -- COMMAND [ARG...]
//   node client.mjs [--tool NAME] [--args JSON] [--timeout-ms N] --url URL [--header "Name: value"]...
//
// With --url it speaks streamable HTTP to URL instead (StreamableHTTPClientTransport), sending
// each --header on every request.
//
// It spawns COMMAND ARG... with StdioClientTransport, runs initialize, tools/list (all
// pages) and, when --tool is given, tools/call NAME with the JSON object from --args.
// The server's environment is the SDK's default safe set (HOME, LOGNAME, PATH, SHELL,
// TERM, USER) plus the --env object, as a real host would give it. Server stderr is
// passed through to this process's stderr.
//
// Prints exactly one JSON document on stdout:
//   {"server": Implementation, "capabilities": {...}, "instructions": string|null,
//    "tools": [Tool...], "call": CallToolResult|null, "error": null|{"code","message","data"}}
// "error" holds a JSON-RPC error (or a client-side validation failure, e.g. structuredContent
// not matching outputSchema) raised by tools/call; "call" is then null.
// Exit codes: 0 document printed; 1 connection/list failure (document with "error", no tools);
// 2 usage error.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(message) {
  process.stderr.write(`client.mjs: ${message}\n`);
  process.stderr.write(
    "usage: node client.mjs [--tool NAME] [--args JSON] [--env JSON] [--cwd DIR] [--timeout-ms N] -- COMMAND [ARG...]\n",
  );
  process.exit(2);
}

function parseObject(flag, text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    usage(`${flag} is not valid JSON: ${err.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    usage(`${flag} must be a JSON object`);
  }
  return value;
}

function parseArgv(argv) {
  const opts = { tool: null, args: {}, env: {}, cwd: undefined, timeoutMs: 30000, command: [], url: null, headers: {} };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      i++;
      break;
    }
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case "--tool":
        opts.tool = next();
        break;
      case "--args":
        opts.args = parseObject(a, next());
        break;
      case "--env":
        opts.env = parseObject(a, next());
        break;
      case "--cwd":
        opts.cwd = next();
        break;
      case "--url":
        opts.url = next();
        break;
      case "--header": {
        const text = next();
        const colon = text.indexOf(":");
        if (colon < 1) usage("--header must be \"Name: value\"");
        opts.headers[text.slice(0, colon).trim()] = text.slice(colon + 1).trim();
        break;
      }
      case "--timeout-ms":
        opts.timeoutMs = Number(next());
        if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) usage("--timeout-ms must be a positive number");
        break;
      default:
        usage(`unknown option ${a}`);
    }
  }
  opts.command = argv.slice(i);
  if (opts.command.length === 0 && opts.url === null) usage("missing server command after -- (or --url)");
  for (const [k, v] of Object.entries(opts.env)) {
    if (typeof v !== "string") usage(`--env value for ${k} must be a string`);
  }
  return opts;
}

function errorJson(err) {
  return {
    code: typeof err?.code === "number" ? err.code : null,
    message: String(err?.message ?? err),
    data: err?.data ?? null,
  };
}

async function main() {
  const opts = parseArgv(process.argv.slice(2));
  const transport =
    opts.url !== null
      ? new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: opts.headers } })
      : new StdioClientTransport({
          command: opts.command[0],
          args: opts.command.slice(1),
          env: opts.env,
          cwd: opts.cwd,
          stderr: "inherit",
        });
  const client = new Client({ name: "sutura-external-test-client", version: "0.0.0" }, { capabilities: {} });
  const requestOptions = { timeout: opts.timeoutMs };
  const doc = { server: null, capabilities: null, instructions: null, tools: [], call: null, error: null };
  let exitCode = 0;
  try {
    await client.connect(transport, requestOptions);
    doc.server = client.getServerVersion() ?? null;
    doc.capabilities = client.getServerCapabilities() ?? null;
    doc.instructions = client.getInstructions() ?? null;
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
      doc.tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (err) {
    doc.error = errorJson(err);
    exitCode = 1;
  }
  if (exitCode === 0 && opts.tool !== null) {
    try {
      // listTools above cached the outputSchema validators, so the SDK checks
      // structuredContent against the tool's outputSchema here, as hosts do.
      doc.call = await client.callTool({ name: opts.tool, arguments: opts.args }, undefined, requestOptions);
    } catch (err) {
      doc.error = errorJson(err);
    }
  }
  process.stdout.write(JSON.stringify(doc) + "\n");
  try {
    await client.close();
  } catch {
    // the document is already out; a failed shutdown must not change it
  }
  process.exitCode = exitCode;
}

main().catch((err) => {
  process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
