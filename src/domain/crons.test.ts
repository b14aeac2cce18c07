import { describe, expect, it } from "vitest";
import type { Cron } from "../storage/cron-ports.js";
import { cronRunRequest } from "./crons.js";

const base: Cron = {
  cron_id: "c1",
  assistant_id: "a1",
  thread_id: null,
  on_run_completed: "delete",
  end_time: null,
  schedule: "* * * * *",
  timezone: null,
  created_at: "2030-01-01T00:00:00.000Z",
  updated_at: "2030-01-01T00:00:00.000Z",
  payload: { assistant_id: "a1", input: { n: 1 }, webhook: "https://example.com/hook", multitask_strategy: "reject", if_not_exists: "create" },
  user_id: null,
  next_run_date: "2030-01-01T00:01:00.000Z",
  metadata: { team: "ops" },
  enabled: true,
};

describe("the run a cron occurrence creates", () => {
  it("is stateless with the cron's on_run_completed as on_completion, and thread-only fields dropped", () => {
    expect(cronRunRequest({ ...base, on_run_completed: "keep" })).toEqual({
      threadId: null,
      body: {
        assistant_id: "a1",
        input: { n: 1 },
        webhook: "https://example.com/hook",
        metadata: { team: "ops", cron_id: "c1" },
        on_completion: "keep",
      },
    });
  });

  it("runs on the cron's thread with its payload, multitask strategy and webhook", () => {
    expect(cronRunRequest({ ...base, thread_id: "t1", on_run_completed: null })).toEqual({
      threadId: "t1",
      body: {
        assistant_id: "a1",
        input: { n: 1 },
        webhook: "https://example.com/hook",
        multitask_strategy: "reject",
        if_not_exists: "create",
        metadata: { team: "ops", cron_id: "c1" },
      },
    });
  });

  it("lets cron_id win over a metadata key of the same name", () => {
    expect(cronRunRequest({ ...base, metadata: { cron_id: "other" } }).body.metadata).toEqual({ cron_id: "c1" });
  });
});
