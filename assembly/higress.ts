export * from "./abi/exports";
import "./abi/abort";
