// Entry of a policy worker thread: registers tsx's TypeScript loader in this thread, then loads the worker.
import { register } from "tsx/esm/api";

register();
await import("./policy-worker.ts");
