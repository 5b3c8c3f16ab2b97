/**
 * The one JSON envelope of every list command (`delegate list`, `registry search`,
 * `registry a2a list`, ...): scripts read `items` and `total` the same way everywhere.
 * Kept apart from output.ts so printing a list does not load zod.
 * @module
 */
import { z } from "zod";

/** `{ items, total, nextPageToken? }`: `total` counts every match, not only this page. */
export const ListEnvelopeSchema = z.object({
  items: z.array(z.unknown()),
  total: z.number().int().nonnegative(),
  nextPageToken: z.string().min(1).optional(),
}).strict();

/** A parsed list envelope. */
export type ListEnvelope = z.infer<typeof ListEnvelopeSchema>;
