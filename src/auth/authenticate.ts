// Runs the user's `authenticate` on a request and returns the normalised user. An HTTPException it
// throws keeps its status, headers and message; anything else is a 401 with a generic detail, so no
// stack or internal message reaches the client.
import type { AuthUser } from "../domain/access.js";
import { AuthRejection } from "../errors.js";
import { asAuthRejection } from "./http-exception.js";
import type { AuthenticateHook } from "./load-auth.js";
import { normaliseUser } from "./user.js";

export async function authenticateRequest(authenticate: AuthenticateHook, request: Request): Promise<AuthUser> {
  try {
    return normaliseUser(await authenticate(request));
  } catch (err) {
    throw asAuthRejection(err) ?? new AuthRejection(401, "Authentication failed: the request's credentials were not accepted", {});
  }
}
