// Per-request values the middleware chain shares.
export type AppEnv = {
  Variables: {
    requestId: string;
    /** The route pattern that answered, for metrics; unset when no route matched. */
    routePattern: string;
  };
};
