/** Every service Lattice can serve, in the order `lattice serve` starts them. */
import type { ServiceDefinition } from '../platform/service.ts';
import { licensingService } from './licensing/service.ts';
import { licensingCService } from './licensing-c/service.ts';
import { qcosService } from './qcos/service.ts';
import { coreService } from './core/service.ts';
import { suppliersService } from './suppliers/service.ts';
import { platformService } from './platform/service.ts';
import { llmService } from './llm/service.ts';
import { llmGatewayService } from './llm-gateway/service.ts';
import { chatService } from './chat/service.ts';
import { navService } from './nav/service.ts';
import { runtimeService } from './runtime/service.ts';

export const services: readonly ServiceDefinition[] = [licensingService, licensingCService, qcosService, suppliersService, coreService, platformService, llmGatewayService, llmService, chatService, navService, runtimeService];

export function serviceById(id: string): ServiceDefinition {
  const found = services.find((s) => s.id === id);
  if (!found) throw new Error(`unknown service '${id}' (known: ${services.map((s) => s.id).join(', ')})`);
  return found;
}

export const defaultPorts: Record<string, number> = Object.fromEntries(services.map((s) => [s.id, s.defaultPort]));
