import { expect, it } from "vitest";
import { bubblewrapArgs } from "./bubblewrap-args.js";

const confinement = {
  // Under /tmp: the private /tmp must not hide it.
  systemPaths: [{ path: "/usr" }, { path: "/bin", symlinkTo: "usr/bin" }],
  runtime: ["/opt/gantry"],
  hidden: [{ path: "/opt/gantry/.cp", kind: "dir" as const }],
  readOnly: ["/opt/gantry/.cp/builds/d/abc"],
  writable: ["/tmp/cp/deployments/d/data"],
  cwd: "/opt/gantry/.cp/builds/d/abc",
};

it("hides the control plane's files after the runtime that holds them, and mounts the deployment's own inside after that", () => {
  const args = bubblewrapArgs(confinement, "/usr/bin/node", ["server.js"], { asPid1: true, infoFd: 4 });
  const at = (...flagAndPath: string[]) => args.findIndex((_, i) => flagAndPath.every((part, j) => args[i + j] === part));
  expect(at("--ro-bind", "/opt/gantry", "/opt/gantry")).toBeLessThan(at("--tmpfs", "/opt/gantry/.cp"));
  expect(at("--tmpfs", "/opt/gantry/.cp")).toBeLessThan(at("--ro-bind", "/opt/gantry/.cp/builds/d/abc"));
  expect(at("--tmpfs", "/tmp")).toBeLessThan(at("--bind", "/tmp/cp/deployments/d/data"));
  expect(at("--tmpfs", "/tmp")).toBeLessThan(at("--ro-bind", "/opt/gantry", "/opt/gantry"));
  expect(at("--symlink", "usr/bin", "/bin")).toBeGreaterThanOrEqual(0);
  for (const flag of ["--unshare-user", "--unshare-pid", "--disable-userns", "--die-with-parent", "--as-pid-1"]) expect(args).toContain(flag);
  expect(at("--proc", "/proc")).toBeGreaterThan(0);
  expect(at("--info-fd", "4")).toBeGreaterThan(0);
  // No --clearenv: bwrap itself is spawned with the sandbox's environment, so even its own /proc entry holds nothing else.
  expect(args).not.toContain("--clearenv");
  expect(args.slice(-3)).toEqual(["--", "/usr/bin/node", "server.js"]);
});
