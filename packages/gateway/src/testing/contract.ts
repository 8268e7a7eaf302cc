// Contract checks for tests: every tool result is validated against its tool's declared
// outputSchema with ajv (JSON Schema as the MCP server advertises it: draft-07), so a
// nonconforming answer fails the test that produced it, whichever face produced it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { findTool, TOOLS } from '../tools/registry.js';

// The SDK advertises draft-07 today; a server that says 2020-12 is checked as 2020-12.
const draft07 = new Ajv({ allErrors: true, strict: false });
const draft2020 = new Ajv2020({ allErrors: true, strict: false });
const compile = (schema: object): ValidateFunction =>
  ((schema as { $schema?: string }).$schema ?? '').includes('2020-12')
    ? draft2020.compile(schema)
    : draft07.compile(schema);
const byTool = new Map<string, ValidateFunction>();
const bySchema = new WeakMap<object, ValidateFunction>();

/** The outputSchema the MCP server advertises for a tool of the registry (the SDK's conversion). */
export function declaredOutputSchema(tool: string): Record<string, unknown> {
  const t = findTool(tool);
  if (!t) throw new Error(`contract: no tool ${tool} in the registry`);
  return z.toJSONSchema(z.object(t.output), { io: 'output', target: 'draft-7' }) as Record<string, unknown>;
}

function check(validate: ValidateFunction, tool: string, structured: unknown): void {
  if (validate(structured)) return;
  const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  throw new Error(`contract: ${tool} answered structuredContent that does not match its outputSchema: ${why}`);
}

/** Throws unless `structured` matches the registry's outputSchema of `tool`. */
export function assertConforms(tool: string, structured: unknown): void {
  let v = byTool.get(tool);
  if (!v) {
    v = compile(declaredOutputSchema(tool));
    byTool.set(tool, v);
  }
  check(v, tool, structured);
}

/** Throws unless `structured` matches `schema` (an outputSchema a server advertised). */
export function assertConformsTo(schema: object, tool: string, structured: unknown): void {
  let v = bySchema.get(schema);
  if (!v) {
    v = compile(schema);
    bySchema.set(schema, v);
  }
  check(v, tool, structured);
}

/**
 * Makes every callTool of this MCP client check its answer: against the outputSchema the
 * server advertised (tools/list, asked once) and against the registry's declaration. A
 * successful answer must carry structuredContent; an error answer must not.
 */
export function withContract(client: Client): Client {
  const call = client.callTool.bind(client);
  let schemas: Promise<Map<string, object>> | undefined;
  const advertised = () => {
    schemas ??= client
      .listTools()
      .then((r) => new Map(r.tools.flatMap((t) => (t.outputSchema ? [[t.name, t.outputSchema as object]] : []))));
    return schemas;
  };
  client.callTool = (async (params, resultSchema, options) => {
    const result = await call(params, resultSchema, options);
    const name = params.name;
    if (result.isError) {
      if (result.structuredContent !== undefined) throw new Error(`contract: ${name} error carried structuredContent`);
      return result;
    }
    if (result.structuredContent === undefined) throw new Error(`contract: ${name} answered no structuredContent`);
    const schema = (await advertised()).get(name);
    if (!schema) throw new Error(`contract: ${name} advertises no outputSchema`);
    assertConformsTo(schema, name, result.structuredContent);
    if (findTool(name)) assertConforms(name, result.structuredContent);
    return result;
  }) as Client['callTool'];
  return client;
}

/**
 * Checks a `fleetls <command> ... --json` run's stdout against the outputSchema of the tool
 * behind the command (a run that printed nothing, e.g. a usage error, is not an answer).
 */
export function assertCliJson(argv: readonly string[], stdout: string): void {
  if (!argv.includes('--json') || stdout.trim() === '') return;
  const tool = TOOLS.find((t) => t.cli !== undefined && argv.includes(t.cli.command));
  if (tool) assertConforms(tool.name, JSON.parse(stdout));
}
