// MCP tasks (the 2025-11-25 revision, the SDK's experimental task support) for the clients that
// send them (VS Code's Copilot Chat): a fan-out tool declares taskSupport "optional"; a
// task-augmented tools/call answers at once with a task that runs the tool's whole scan (one
// deadline, the scan's, in place of the call's), tasks/get says where it stands (hosts done of
// total in statusMessage), tasks/result gives the tool's whole answer once it is done, and
// tasks/cancel stops every host's walk. A task belongs to the principal that created it, as a
// scan does, and the same caps bound how many run. A call without `task` takes the ordinary
// route (the cursor): nothing of it changes.
import { randomBytes } from 'node:crypto';
import type { HostStatus } from '@fleetls/core';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { type CallToolResult, ErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { ScanRegistry } from '../../scans/scan-registry.js';

/** How often a client is told to poll tasks/get. */
const POLL_MS = 1000;

interface Entry {
  principal: string;
  task: Task;
  result?: Result;
  ctrl: AbortController;
  timer?: NodeJS.Timeout;
}

export interface TaskRun {
  task: Task;
  /** Aborts when the task is cancelled (tasks/cancel) or dropped. */
  signal: AbortSignal;
  /** The scan's host progress, shown in the task's statusMessage. */
  onProgress: (done: number, total: number, status: HostStatus) => void;
  /** The tool's answer: the task is completed (failed when it is an error). */
  finish: (result: CallToolResult) => void;
}

const terminal = (s: Task['status']) => s === 'completed' || s === 'failed' || s === 'cancelled';

/** The tasks of one gateway process, over all its MCP servers (HTTP makes one per request). */
export class TaskKeeper {
  private readonly held = new Map<string, Entry>();

  constructor(private readonly limits: { ttlMs: number; perPrincipal: number; total: number }) {}

  /** A new working task of `principal`, or a refusal when a cap is reached. */
  create(principal: string, requestedTtl: number | null | undefined): TaskRun {
    const running = [...this.held.values()].filter((e) => !terminal(e.task.status));
    const mine = running.filter((e) => e.principal === principal).length;
    if (mine >= this.limits.perPrincipal) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${mine} tasks of this caller are still working (at most ${this.limits.perPrincipal}): wait for one, or cancel one with tasks/cancel`,
      );
    }
    if (running.length >= this.limits.total) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${running.length} tasks are working on this gateway (at most ${this.limits.total}): try again when one has ended`,
      );
    }
    // The result is kept the scan TTL after the task ends, or less when the client asks.
    const ttl = Math.min(requestedTtl ?? this.limits.ttlMs, this.limits.ttlMs);
    const now = new Date().toISOString();
    const task: Task = {
      taskId: randomBytes(12).toString('hex'),
      status: 'working',
      ttl,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: POLL_MS,
      statusMessage: 'starting',
    };
    const entry: Entry = { principal, task, ctrl: new AbortController() };
    this.held.set(task.taskId, entry);
    return {
      task: { ...task },
      signal: entry.ctrl.signal,
      onProgress: (done, total) => {
        if (terminal(entry.task.status)) return;
        entry.task.statusMessage = `${done} of ${total} hosts done`;
        entry.task.lastUpdatedAt = new Date().toISOString();
      },
      finish: (result) => {
        if (terminal(entry.task.status)) return;
        entry.result = result;
        this.settle(entry, result.isError ? 'failed' : 'completed', entry.task.statusMessage);
      },
    };
  }

  private settle(entry: Entry, status: Task['status'], message?: string): void {
    entry.task.status = status;
    if (message !== undefined) entry.task.statusMessage = message;
    entry.task.lastUpdatedAt = new Date().toISOString();
    if (status === 'cancelled') entry.ctrl.abort(new Error('the task was cancelled'));
    const ttl = entry.task.ttl ?? this.limits.ttlMs;
    entry.timer = setTimeout(() => this.held.delete(entry.task.taskId), ttl);
    entry.timer.unref();
  }

  private owned(taskId: string, principal: string): Entry | undefined {
    const e = this.held.get(taskId);
    if (e && e.principal !== principal) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `task ${taskId} was created by another caller (another bearer token, or another session): it is not yours to read or cancel`,
      );
    }
    return e;
  }

  /** The SDK's task store as one principal sees it: another principal's task is refused, naming it. */
  storeFor(principal: string): TaskStore {
    return {
      createTask: async (_params: CreateTaskOptions) => {
        throw new McpError(ErrorCode.InternalError, 'tasks are created by the fan-out tools only');
      },
      getTask: async (taskId) => {
        const e = this.owned(taskId, principal);
        return e ? { ...e.task } : null;
      },
      storeTaskResult: async (taskId, status, result) => {
        const e = this.owned(taskId, principal);
        if (!e || terminal(e.task.status)) return;
        e.result = result;
        this.settle(e, status);
      },
      getTaskResult: async (taskId) => {
        const e = this.owned(taskId, principal);
        if (!e)
          throw new McpError(
            ErrorCode.InvalidParams,
            `task ${taskId} is not held (it ended and expired, or never was)`,
          );
        if (!e.result) {
          const why = e.task.status === 'cancelled' ? 'it was cancelled' : `it is ${e.task.status}`;
          throw new McpError(ErrorCode.InvalidParams, `task ${taskId} has no result: ${why}`);
        }
        return e.result;
      },
      updateTaskStatus: async (taskId, status, statusMessage) => {
        const e = this.owned(taskId, principal);
        if (!e)
          throw new McpError(
            ErrorCode.InvalidParams,
            `task ${taskId} is not held (it ended and expired, or never was)`,
          );
        if (terminal(e.task.status)) return;
        if (terminal(status)) this.settle(e, status, statusMessage);
        else {
          e.task.status = status;
          if (statusMessage !== undefined) e.task.statusMessage = statusMessage;
        }
      },
      listTasks: async () => ({
        tasks: [...this.held.values()].filter((e) => e.principal === principal).map((e) => ({ ...e.task })),
      }),
    };
  }

  close(): void {
    for (const e of this.held.values()) {
      clearTimeout(e.timer);
      e.ctrl.abort(new Error('the gateway is shutting down'));
    }
    this.held.clear();
  }
}

const keepers = new WeakMap<ScanRegistry, TaskKeeper>();

/** The tasks that go with a registry of scans (one per process, shared as the scans are). */
export function tasksOf(scans: ScanRegistry): TaskKeeper {
  let k = keepers.get(scans);
  if (!k) {
    const o = scans.options;
    k = new TaskKeeper({ ttlMs: o.ttlMs, perPrincipal: o.perPrincipal, total: o.total });
    keepers.set(scans, k);
  }
  return k;
}

/** The server's capabilities for tasks: tools/call may be task-augmented; tasks are listed and cancelled. */
export const TASK_CAPABILITIES = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;
