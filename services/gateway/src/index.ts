export { type GatewayConfig, readGatewayConfig } from "./config.js";
export { KeyRing } from "./http/api-keys.js";
export { createGateway, type RunningGateway, startGateway } from "./server.js";
