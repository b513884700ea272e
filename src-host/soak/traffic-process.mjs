// Entry of the soak's traffic process: registers tsx's TypeScript loader, then loads the process body.
import { register } from "tsx/esm/api";

register();
await import("./traffic-process.ts");
