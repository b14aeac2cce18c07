export declare const SERVER_PACKAGES: { dev: string[]; serve: string[] };
export declare function serverCommand(argv: string[]): "dev" | "serve" | undefined;
export declare function loadServerPackages(command: "dev" | "serve"): Promise<void>;
