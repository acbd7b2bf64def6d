#!/usr/bin/env node
// guardserver.mjs is an MCP server written with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.x, pinned in package.json beside it), for
// the tests of elicitray's tool-call guard (issue 14): it serves, over
// stdio, two tools that differ only in their annotations.
//
//   node guardserver.mjs
//
//   wipe   annotated destructiveHint: true; answers "wiped NAME"
//   tidy   annotated destructiveHint: false; answers "tidied NAME"
//
// Both take {"name": string}. server-everything has no tool annotated
// destructive, so the option that guards every such tool is shown here.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
// zod is the SDK's own dependency (its tools' schemas are zod shapes).
import { z } from 'zod';

const server = new McpServer({ name: 'guard-test-server', version: '1.0.0' });
server.registerTool('wipe', {
    title: 'Wipe a disk',
    description: 'Erases every file on the named disk.',
    inputSchema: { name: z.string() },
    annotations: { destructiveHint: true, readOnlyHint: false },
}, async ({ name }) => ({ content: [{ type: 'text', text: `wiped ${name}` }] }));
server.registerTool('tidy', {
    title: 'Tidy a disk',
    description: 'Sorts the files on the named disk.',
    inputSchema: { name: z.string() },
    annotations: { destructiveHint: false, readOnlyHint: false },
}, async ({ name }) => ({ content: [{ type: 'text', text: `tidied ${name}` }] }));
await server.connect(new StdioServerTransport());
