import { describe, expect, it } from "vitest";
import { StartupError } from "../errors.js";
import { loadObserveConfig } from "./observe-config.js";

const project = { env: {} };

describe("loadObserveConfig", () => {
  it("is off without variables", () => {
    expect(loadObserveConfig(project, {})).toEqual({ langsmith: false });
  });

  it("traces to LangSmith only with a key and a tracing variable set to true", () => {
    expect(loadObserveConfig(project, { LANGSMITH_TRACING: "true" }).langsmith).toBe(false);
    expect(loadObserveConfig(project, { LANGSMITH_API_KEY: "k" }).langsmith).toBe(false);
    expect(loadObserveConfig(project, { LANGSMITH_API_KEY: "k", LANGSMITH_TRACING: "false" }).langsmith).toBe(false);
    expect(loadObserveConfig(project, { LANGCHAIN_API_KEY: "k", LANGCHAIN_TRACING_V2: "true" }).langsmith).toBe(true);
    expect(loadObserveConfig({ env: { LANGSMITH_API_KEY: "k", LANGSMITH_TRACING: "true" } }, {}).langsmith).toBe(true);
  });

  it("reads the standard OTEL_* variables, appending the signal path to the base endpoint", () => {
    const { otel } = loadObserveConfig(project, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-team=a",
      OTEL_SERVICE_NAME: "agents",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
    });
    expect(otel).toMatchObject({
      tracesUrl: "http://collector:4318/v1/traces",
      headers: { authorization: "Bearer abc", "x-team": "a" },
      serviceName: "agents",
      resourceAttributes: { "deployment.environment": "prod" },
    });
    expect(loadObserveConfig(project, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/custom" }).otel?.tracesUrl).toBe("http://t:4318/custom");
    expect(loadObserveConfig(project, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).otel).toBeUndefined();
  });

  it("refuses what it cannot honour, naming the variable", () => {
    expect(() => loadObserveConfig(project, { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(StartupError);
    expect(() => loadObserveConfig(project, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL/,
    );
    expect(() => loadObserveConfig(project, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "nokey" })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
  });
});
