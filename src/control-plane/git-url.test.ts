import { describe, expect, it } from "vitest";
import { gitProtocolOf } from "./git-url.js";

describe("gitProtocolOf", () => {
  it("names the protocol of the remotes a deployment may use", () => {
    expect(gitProtocolOf("https://github.com/org/repo.git")).toBe("https");
    expect(gitProtocolOf("HTTP://host/repo.git")).toBe("http");
    expect(gitProtocolOf("ssh://git@host:22/repo.git")).toBe("ssh");
    expect(gitProtocolOf("git@github.com:org/repo.git")).toBe("ssh");
    expect(gitProtocolOf("host.example:/srv/repo.git")).toBe("ssh");
    expect(gitProtocolOf("git://host/repo.git")).toBe("git");
    expect(gitProtocolOf("file:///srv/repo.git")).toBe("file");
    expect(gitProtocolOf("/srv/repo.git")).toBe("file");
  });

  it("refuses remote helpers, other schemes and relative paths", () => {
    for (const url of [
      "ext::sh -c touch% /tmp/x",
      "fd::17",
      "file::/tmp/x",
      "ftp://host/repo.git",
      "--upload-pack=x",
      "repo.git",
      "./repo",
      "transport::https://x",
    ]) {
      expect(gitProtocolOf(url), url).toBeUndefined();
    }
  });
});
