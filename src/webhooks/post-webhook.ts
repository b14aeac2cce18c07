// One webhook attempt: POST the body with a deadline, connecting only to an address the URL policy
// allows. The check sits in the socket's DNS lookup, so the address judged is the one connected
// to: a name can't pass the check and then resolve elsewhere (DNS rebinding). Redirects are not
// followed; a 3xx counts as the receiver's answer.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { addressRefusal } from "./webhook-address.js";
import type { WebhookUrlPolicy } from "../config/webhook-config.js";
import { webhookHost } from "./webhook-url.js";
import type { AttemptReport } from "./retry-policy.js";

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  /** Aborts the attempt (the server is stopping); reported as a network error. */
  signal?: AbortSignal;
}

/** The error code our lookup fails with when the policy refuses an address the name resolves to. */
const REFUSED = "EWEBHOOKREFUSED";

export function postWebhook(url: URL, body: string, options: PostOptions): Promise<AttemptReport> {
  const host = webhookHost(url);
  if (isIP(host)) {
    const refusal = addressRefusal(host, options.policy);
    if (refusal) return Promise.resolve({ kind: "refused", message: `refused: ${refusal}` });
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: "POST",
    headers: { ...options.headers, "content-length": Buffer.byteLength(body).toString() },
    lookup: guardedLookup(options.policy),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  return new Promise<AttemptReport>((resolve) => {
    let settled = false;
    const finish = (report: AttemptReport) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(report);
    };
    const req = send(url, requestOptions, (res) => {
      // The body is not read for meaning, only drained so the socket is freed.
      res.resume();
      res.once("end", () => finish({ kind: "response", status: res.statusCode ?? 0 }));
      res.once("error", (err) => finish({ kind: "error", message: err.message }));
    });
    const timer = setTimeout(() => {
      finish({ kind: "error", message: `timed out after ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.once("error", (err: NodeJS.ErrnoException) => finish({ kind: err.code === REFUSED ? "refused" : "error", message: err.message }));
    req.end(body);
  });
}

/** dns.lookup, failing with the policy's reason when any address the name resolves to is refused. */
function guardedLookup(policy: WebhookUrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, "", 0);
      const refused = addresses.map((a) => addressRefusal(a.address, policy)).find((r) => r !== null);
      if (refused) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${refused}`), { code: REFUSED }), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
