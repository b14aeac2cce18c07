// A revision started by the control plane answers only the control plane: its port is on the
// host's loopback, where any local process (another deployment's code among them) can reach it,
// so every request must carry the revision's token, which only the control plane's router and
// health check know (GANTRY_REVISION_TOKEN, set by the control plane). Compared in constant time.
// In-process calls (loopback.ts) do not pass through here.
import { createHash, timingSafeEqual } from "node:crypto";
import { REVISION_TOKEN_HEADER } from "../config/revision-token.js";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

export function requireRevisionToken(token: string, fetch: Fetch): Fetch {
  const expected = digest(token);
  return (request, env) => {
    const presented = request.headers.get(REVISION_TOKEN_HEADER);
    // Digests of equal length, so the comparison's time says nothing about the token.
    if (presented === null || !timingSafeEqual(digest(presented), expected)) {
      return Response.json({ detail: "This server answers only its control plane: reach the deployment through the control plane's router." }, { status: 403 });
    }
    return fetch(request, env);
  };
}
