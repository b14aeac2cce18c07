// The header carrying a revision's token (GANTRY_REVISION_TOKEN): the control plane's router and
// health check send it, and the revision's server (server/revision-token.ts) refuses requests
// without it. Here, where both sides may import it, since the drivers must not import HTTP code.
export const REVISION_TOKEN_HEADER = "x-gantry-revision-token";
