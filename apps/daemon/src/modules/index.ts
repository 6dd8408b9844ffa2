/**
 * The one table of modules. A module of the spec that is not here yet still has its switch, and its
 * routes answer "not available yet".
 */
import type { ModuleDef } from '../core/modulehost.js';
import { wolModule } from './wol/index.js';
import { webModule } from './web/index.js';
import { portforwardModule } from './portforward/index.js';
import { ddnsModule } from './ddns/index.js';

export const MODULE_TABLE: readonly ModuleDef[] = [wolModule, webModule, ddnsModule, portforwardModule];
