/** Conversation and message bodies as the API returns them. */
import { Type } from 'typebox';

export const ConversationSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    model: Type.String({ description: 'Chat model id of the catalog' }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
);

export const MessageSchema = Type.Object(
  {
    id: Type.String(),
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String(),
    model: Type.String(),
    status: Type.Union([Type.Literal('complete'), Type.Literal('streaming'), Type.Literal('stopped'), Type.Literal('failed')], {
      description: 'stopped: the user stopped the reply (its text so far is kept); failed: the model failed (see error)',
    }),
    error: Type.Union([Type.String(), Type.Null()]),
    promptTokens: Type.Union([Type.Integer(), Type.Null()]),
    completionTokens: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String(),
  },
);

export const ConversationId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
