/** A v1.0 SendMessage request as @a2a-js/sdk 1.3.0's client takes it. */
import { SendMessageRequest } from "@a2a-js/sdk";

/**
 * A user message with one text part; `returnImmediately` answers as soon as the task
 * exists, `contextId` continues a conversation.
 */
export function v1Message(
  text: string,
  options: { returnImmediately?: boolean; contextId?: string } = {},
): SendMessageRequest {
  const request = SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text }],
      ...options.contextId ? { contextId: options.contextId } : {},
    },
  });
  if (options.returnImmediately) {
    request.configuration = {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: true,
      taskPushNotificationConfig: undefined,
    };
  }
  return request;
}

/** A v0.3 `message/send` params object as @a2a-js/sdk 0.3.14's client takes it. */
export function v03Message(text: string, configuration?: { blocking?: boolean }) {
  return {
    message: {
      kind: "message" as const,
      messageId: crypto.randomUUID(),
      role: "user" as const,
      parts: [{ kind: "text" as const, text }],
    },
    ...configuration ? { configuration } : {},
  };
}
