// The types of scripts/dev-start.mjs (plain JavaScript, checked by tsconfig.build-script.json), for dev-server.ts and dev.ts.
import type { ChildProcess } from 'node:child_process';

export declare const DEV_BUILD_DIR: string;
/** What the build said: esbuild's warnings, or its errors when it failed. */
export type DevBuildResult = { ok: boolean; output: string };
export declare function devServerEnv(): NodeJS.ProcessEnv;
export declare function devEntry(): string;
export declare function forkStandby(env: NodeJS.ProcessEnv, preloadFor?: string): ChildProcess;
export declare function startEarly(): void;
export declare function takeEarlyStandby(): { child: ChildProcess; reports: unknown[] } | undefined;
export declare function buildDev(): Promise<DevBuildResult>;
