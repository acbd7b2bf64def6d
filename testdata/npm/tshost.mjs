#!/usr/bin/env node
// tshost.mjs is an MCP host written with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.x, pinned in package.json beside it), for
// elicitray's tests. It starts a server command with the SDK's
// StdioClientTransport, as a host does from its MCP config, and calls tools.
// It declares no elicitation of its own: only a wrapper in front of the
// server (elicitray wrap) can make a server elicit, and answer it.
//
//   node tshost.mjs [--env JSON] [--wire FILE] [--timeout MS] [--progress]
//                   [--tool NAME [--arguments JSON] [--times N]] -- COMMAND [ARG...]
//
//   --env JSON       the transport's env: an object of strings, what a host
//                    config's "env" holds. The SDK adds it to its default
//                    environment; without it the command gets only the
//                    default: HOME, LOGNAME, PATH, SHELL, TERM and USER.
//   --tool NAME      call NAME once with --arguments (a JSON object, default
//                    {}), print one line, close and exit. With --times N,
//                    N calls at once, all in flight together: a line each,
//                    in the order they end. Without --tool the
//                    host prints one line once connected, then reads calls
//                    from stdin, one JSON line each ({"tool":NAME,
//                    "arguments":{…}}), answers each with one line, and
//                    closes when stdin ends.
//   --wire FILE      append every JSON-RPC message the SDK sends or receives
//                    to FILE, one JSON line each: {"dir":"send"|"recv",
//                    "message":…}. Each is written (synchronously) before the
//                    line of the call it completes is printed.
//   --timeout MS     the SDK's request timeout of each tools/call (default:
//                    the SDK's, 60 s). Connecting keeps the SDK's: a server
//                    slow to start on a busy machine (npx, Node) is no
//                    call that timed out, and hosts give starting longer.
//   --progress       call tools with an onprogress handler (the SDK then
//                    sends a progressToken in _meta) and
//                    resetTimeoutOnProgress: each notifications/progress
//                    for the call starts its timeout again. The line of a
//                    call then has "progress": how many came.
//
// Every line printed is one JSON object: "protocolVersion" (what the
// server's initialize reply agreed) and "serverInfo"; for a call also "tool"
// and either "result" (the CallToolResult) or "error" ({code, message,
// data}). A host that cannot connect prints {"error":…} and exits 1. Its
// logs, and the command's stderr (the transport inherits it), go to stderr.
//
// The protocol version cannot be chosen: SDK 1.x always asks for
// LATEST_PROTOCOL_VERSION (2025-11-25 in 1.32) at initialize, and agrees to
// whatever supported version the server answers.

import { openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const usage =
    'usage: node tshost.mjs [--env JSON] [--wire FILE] [--timeout MS] [--progress] [--tool NAME [--arguments JSON] [--times N]] -- COMMAND [ARG...]';

function log(...args) {
    console.error('tshost:', ...args);
}

function print(line) {
    process.stdout.write(JSON.stringify(line) + '\n');
}

// errorOf is what a line says about err: an McpError's code, message and
// data; for anything else, its message.
function errorOf(err) {
    if (err && typeof err === 'object' && 'code' in err) {
        return { code: err.code, message: err.message, data: err.data };
    }
    return { message: String(err?.message ?? err) };
}

function parseJSONObject(flag, text) {
    let value;
    try {
        value = JSON.parse(text);
    } catch (err) {
        throw new Error(`${flag}: ${err.message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new Error(`${flag}: want a JSON object, got ${text}`);
    }
    return value;
}

// TapTransport hands every message between the SDK's Client and the stdio
// transport to record on its way, and notes the protocol version the
// initialize reply agreed (the Client keeps it to itself).
class TapTransport {
    constructor(inner, record) {
        this.inner = inner;
        this.record = record;
        this.protocolVersion = undefined;
        this.initializeId = undefined;
        inner.onmessage = (message, extra) => {
            record('recv', message);
            if (this.initializeId !== undefined && message.id === this.initializeId && message.result) {
                this.protocolVersion = message.result.protocolVersion;
            }
            this.onmessage?.(message, extra);
        };
        inner.onclose = () => this.onclose?.();
        inner.onerror = err => this.onerror?.(err);
    }

    start() {
        return this.inner.start();
    }

    send(message, options) {
        this.record('send', message);
        if (message.method === 'initialize') {
            this.initializeId = message.id;
        }
        return this.inner.send(message, options);
    }

    close() {
        return this.inner.close();
    }
}

async function main() {
    let parsed;
    try {
        parsed = parseArgs({
            options: {
                env: { type: 'string' },
                wire: { type: 'string' },
                timeout: { type: 'string' },
                progress: { type: 'boolean' },
                tool: { type: 'string' },
                arguments: { type: 'string' },
                times: { type: 'string' }
            },
            allowPositionals: true,
            strict: true
        });
    } catch (err) {
        log(`${err.message}\n${usage}`);
        return 2;
    }
    const { values, positionals } = parsed;
    if (positionals.length === 0) {
        log(`no server command\n${usage}`);
        return 2;
    }
    let env, args, timeout;
    let times = 1;
    try {
        if (values.times !== undefined) {
            times = Number(values.times);
            if (!Number.isInteger(times) || times <= 0) {
                throw new Error(`--times: want a count, got ${values.times}`);
            }
        }
        env = values.env === undefined ? undefined : parseJSONObject('--env', values.env);
        args = values.arguments === undefined ? {} : parseJSONObject('--arguments', values.arguments);
        if (values.timeout !== undefined) {
            timeout = Number(values.timeout);
            if (!Number.isInteger(timeout) || timeout <= 0) {
                throw new Error(`--timeout: want milliseconds, got ${values.timeout}`);
            }
        }
    } catch (err) {
        log(err.message);
        return 2;
    }

    const wire = values.wire === undefined ? undefined : openSync(values.wire, 'a');
    const record = (dir, message) => {
        if (wire !== undefined) {
            writeSync(wire, JSON.stringify({ dir, message }) + '\n');
        }
    };

    const [command, ...commandArgs] = positionals;
    const transport = new TapTransport(new StdioClientTransport({ command, args: commandArgs, env }), record);
    // No capabilities: in particular no elicitation (PROTOCOL.md §3).
    const client = new Client({ name: 'elicitray-ts-host', version: '1.0.0' }, { capabilities: {} });
    client.onerror = err => log('the SDK reports:', err.message);

    const options = timeout === undefined ? undefined : { timeout };
    try {
        await client.connect(transport);
    } catch (err) {
        log(`connecting to ${command}: ${err.message}`);
        print({ error: errorOf(err) });
        await client.close().catch(() => {});
        return 1;
    }
    const session = { protocolVersion: transport.protocolVersion, serverInfo: client.getServerVersion() };
    const call = async (tool, toolArgs) => {
        let progress = 0;
        const callOptions = { ...options };
        if (values.progress) {
            callOptions.onprogress = () => {
                progress++;
            };
            callOptions.resetTimeoutOnProgress = true;
        }
        try {
            const result = await client.callTool({ name: tool, arguments: toolArgs }, undefined, callOptions);
            return { ...session, tool, result, ...(values.progress ? { progress } : {}) };
        } catch (err) {
            return { ...session, tool, error: errorOf(err), ...(values.progress ? { progress } : {}) };
        }
    };

    if (values.tool !== undefined) {
        const calls = [];
        for (let i = 0; i < times; i++) {
            calls.push(call(values.tool, args).then(print));
        }
        await Promise.all(calls);
    } else {
        print(session);
        for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
            if (line.trim() === '') {
                continue;
            }
            let req;
            try {
                req = parseJSONObject('a call on stdin', line);
            } catch (err) {
                print({ ...session, error: errorOf(err) });
                continue;
            }
            print(await call(req.tool, req.arguments ?? {}));
        }
    }
    // Closing ends the command's stdin, and after two seconds signals it
    // (the SDK's StdioClientTransport.close).
    await client.close();
    return 0;
}

process.exitCode = await main();
