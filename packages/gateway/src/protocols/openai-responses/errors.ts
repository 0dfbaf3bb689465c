/**
 * The Responses API's error body: OpenAI answers every API of its platform with one error shape
 * (`{ error: { message, type, code } }`), so this front's is chat completions', the same bytes.
 */
export { openAiErrorBody as responsesErrorBody } from '../openai-chat/errors.js';
