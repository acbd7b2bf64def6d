#!/usr/bin/env node
// approvalserver.mjs is an MCP server written with the official TypeScript
// SDK (@modelcontextprotocol/sdk 1.x, pinned in package.json beside it), for
// the end-to-end test that a remembered value never answers for the user
// (issue 24). It serves, over stdio, two tools whose every question is an
// elicitation/create pushed to the client (the 2025-11-25 way):
//
//   node approvalserver.mjs
//
//   request_change  the classic change-approval guard, up to three rounds:
//                   1. confirm the summary (no fields);
//                   2. the change request: service, reason, environment
//                      (dev, staging or prod; default dev), roll back on
//                      failure (default true);
//                   3. for prod only: "Yes, change production", a check box
//                      with no default.
//                   Answers one line: "executed {change}", "blocked
//                   {change}", "declined in round N" or "aborted in round N".
//   drop_database   one form: the database, the environment (staging or
//                   production, no default) and "I understand the risk" (a
//                   check box with no default). Answers "dropped DB in ENV"
//                   only when the risk was acknowledged, else "kept DB" or
//                   "not dropped (ACTION)".

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'approval-test-server', version: '1.0.0' });
const ask = (message, properties, required = []) =>
    server.server.elicitInput({ message, requestedSchema: { type: 'object', properties, required } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const ended = (action, round) => text(`${action === 'decline' ? 'declined' : 'aborted'} in round ${round}`);

server.registerTool('request_change', {
    title: 'Request a change',
    description: 'Asks for approval, then for the change, then for production.',
}, async () => {
    const summary = await ask('Approve this change: restart the checkout service with the new pool settings?', {});
    if (summary.action !== 'accept') return ended(summary.action, 1);
    const request = await ask('Describe the change request.', {
        service: { type: 'string', title: 'Service' },
        reason: { type: 'string', title: 'Reason' },
        environment: { type: 'string', title: 'Target environment', enum: ['dev', 'staging', 'prod'], default: 'dev' },
        rollback_on_failure: { type: 'boolean', title: 'Roll back on failure', default: true },
    }, ['service', 'reason', 'environment']);
    if (request.action !== 'accept') return ended(request.action, 2);
    const change = JSON.stringify(request.content);
    if (request.content.environment !== 'prod') return text(`executed ${change}`);
    const prod = await ask('This changes production. Confirm?', {
        confirm: { type: 'boolean', title: 'Yes, change production' },
    });
    if (prod.action !== 'accept') return ended(prod.action, 3);
    return text(`${prod.content?.confirm === true ? 'executed' : 'blocked'} ${change}`);
});

server.registerTool('drop_database', {
    title: 'Drop a database',
    description: 'Deletes a database and all its data.',
    annotations: { destructiveHint: true },
}, async () => {
    const r = await ask('Drop which database?', {
        database: { type: 'string', title: 'Database' },
        environment: { type: 'string', title: 'Environment', oneOf: [{ const: 'staging', title: 'Staging' }, { const: 'production', title: 'Production' }] },
        understand: { type: 'boolean', title: 'I understand the risk' },
    }, ['database', 'environment']);
    if (r.action !== 'accept') return text(`not dropped (${r.action})`);
    const { database, environment, understand } = r.content;
    return text(understand === true ? `dropped ${database} in ${environment}` : `kept ${database}`);
});

await server.connect(new StdioServerTransport());
