// A LangChain callback handler that turns one run's graph into OpenTelemetry spans: a span per
// node (a chain run named as the node it runs), per model call and per tool call, each under the
// nearest enclosing one. Model and tool spans follow the GenAI semantic conventions: operation,
// model, provider, token counts. Inner runnables without a span of their own (a node's sequence, a
// prompt) pass their parent's context on, so nothing hangs loose.
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { LLMResult } from "@langchain/core/outputs";
import { type Context, type Span, SpanKind, trace, type Tracer } from "@opentelemetry/api";
import { endWithError } from "./span-error.js";

export class GraphSpans extends BaseCallbackHandler {
  name = "gantry_otel";
  /** Spans are ended as the graph reports: the graph never waits for this handler. */
  override awaitHandlers = false;
  /** Each LangChain run's context: its own span's, or the one it inherited. */
  private readonly contexts = new Map<string, Context>();
  private readonly spans = new Map<string, Span>();

  constructor(
    private readonly tracer: Tracer,
    /** The graph's own root run (the run id): its span is the execution span, started outside. */
    private readonly rootRunId: string,
    private readonly root: Context,
  ) {
    super();
  }

  // The order LangChain's callback manager calls with (its declaration names the fourth `runType`).
  override handleChainStart(_chain: Serialized, _inputs: unknown, runId: string, ...rest: unknown[]): void {
    const [parentRunId, , metadata, , runName] = rest as [
      string | undefined,
      string[] | undefined,
      Record<string, unknown> | undefined,
      string | undefined,
      string | undefined,
    ];
    if (runId === this.rootRunId) return void this.contexts.set(runId, this.root);
    const node = metadata?.langgraph_node;
    if (typeof node === "string" && runName === node) {
      this.open(runId, parentRunId, `node ${node}`, SpanKind.INTERNAL, {
        "langgraph.node": node,
        ...(typeof metadata?.langgraph_step === "number" ? { "langgraph.step": metadata.langgraph_step } : {}),
      });
    } else {
      this.contexts.set(runId, this.parent(parentRunId));
    }
  }

  override handleChainEnd(_outputs: unknown, runId: string): void {
    this.close(runId);
  }

  override handleChainError(err: Error, runId: string): void {
    this.close(runId, err);
  }

  override handleChatModelStart(
    llm: Serialized,
    _messages: unknown,
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.modelStart(llm, runId, parentRunId, extraParams, metadata);
  }

  override handleLLMStart(
    llm: Serialized,
    _prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.modelStart(llm, runId, parentRunId, extraParams, metadata);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const span = this.spans.get(runId);
    if (span) {
      const usage = tokenUsage(output);
      if (usage.input !== undefined) span.setAttribute("gen_ai.usage.input_tokens", usage.input);
      if (usage.output !== undefined) span.setAttribute("gen_ai.usage.output_tokens", usage.output);
      const model = responseModel(output);
      if (model) span.setAttribute("gen_ai.response.model", model);
    }
    this.close(runId);
  }

  override handleLLMError(err: Error, runId: string): void {
    this.close(runId, err);
  }

  override handleToolStart(
    tool: Serialized,
    _input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    const name = runName ?? tool.id?.at(-1) ?? "tool";
    this.open(runId, parentRunId, `execute_tool ${name}`, SpanKind.INTERNAL, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      ...(toolCallId ? { "gen_ai.tool.call.id": toolCallId } : {}),
    });
  }

  override handleToolEnd(_output: unknown, runId: string): void {
    this.close(runId);
  }

  override handleToolError(err: Error, runId: string): void {
    this.close(runId, err);
  }

  /** Ends whatever is still open (a cancelled run's graph reports no end for its nodes). */
  endAll(): void {
    for (const span of this.spans.values()) span.end();
    this.spans.clear();
    this.contexts.clear();
  }

  private modelStart(llm: Serialized, runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, metadata?: Record<string, unknown>): void {
    const params = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    const model = firstString(metadata?.ls_model_name, params.model, params.model_name, params.modelName);
    const provider = firstString(metadata?.ls_provider);
    this.open(runId, parentRunId, model ? `chat ${model}` : "chat", SpanKind.CLIENT, {
      "gen_ai.operation.name": "chat",
      ...(model ? { "gen_ai.request.model": model } : {}),
      ...(provider ? { "gen_ai.provider.name": provider } : {}),
      ...(typeof params.temperature === "number" ? { "gen_ai.request.temperature": params.temperature } : {}),
      ...(typeof llm.id?.at(-1) === "string" ? { "langchain.class": llm.id.at(-1)! } : {}),
    });
  }

  private parent(parentRunId: string | undefined): Context {
    return (parentRunId !== undefined ? this.contexts.get(parentRunId) : undefined) ?? this.root;
  }

  private open(runId: string, parentRunId: string | undefined, name: string, kind: SpanKind, attributes: Record<string, string | number>): void {
    const span = this.tracer.startSpan(name, { kind, attributes }, this.parent(parentRunId));
    this.spans.set(runId, span);
    this.contexts.set(runId, trace.setSpan(this.parent(parentRunId), span));
  }

  private close(runId: string, err?: unknown): void {
    const span = this.spans.get(runId);
    this.contexts.delete(runId);
    if (!span) return;
    this.spans.delete(runId);
    if (err !== undefined) endWithError(span, err);
    else span.end();
  }
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === "string" && v !== "");
}

/** Token counts from the message's usage_metadata, else the provider's llmOutput.tokenUsage. */
function tokenUsage(output: LLMResult): { input?: number; output?: number } {
  let input = 0;
  let out = 0;
  let seen = false;
  for (const generation of output.generations.flat()) {
    const usage = (generation as { message?: { usage_metadata?: { input_tokens?: number; output_tokens?: number } } }).message?.usage_metadata;
    if (usage) {
      seen = true;
      input += usage.input_tokens ?? 0;
      out += usage.output_tokens ?? 0;
    }
  }
  if (seen) return { input, output: out };
  const legacy = (output.llmOutput?.tokenUsage ?? output.llmOutput?.estimatedTokenUsage) as { promptTokens?: number; completionTokens?: number } | undefined;
  return {
    ...(typeof legacy?.promptTokens === "number" ? { input: legacy.promptTokens } : {}),
    ...(typeof legacy?.completionTokens === "number" ? { output: legacy.completionTokens } : {}),
  };
}

function responseModel(output: LLMResult): string | undefined {
  const first = output.generations[0]?.[0] as { message?: { response_metadata?: Record<string, unknown> } } | undefined;
  const meta = first?.message?.response_metadata;
  return firstString(meta?.model_name, meta?.model);
}
