// Bytes that structure the canonical prompt stream. The stream is UTF-8 text; records are concatenated
// without terminators, so the stream of a conversation is a prefix of the stream of its continuation.
//
//   stream   := [FS "cache_salt" US value] [FS "extra_key" US value] [FS "lora_path" US value]
//                                                    (fields that namespace the engine's prefix cache)
//               [message("system", system)]          Anthropic top-level system
//               [message("system", instructions)]    Responses instructions
//               entry* (from messages, or Responses input; a string input is message("user", input)), with
//               [FS "tools" US json] [FS "functions" US json] after the entries that lead them with role system or
//                                                    developer (the chat templates of vLLM's and SGLang's model
//                                                    families render the system prompt before the tools)
//               [FS "prompt" US text (GS text)*]     completions prompt
//   entry    := message | FS "item" US json          (array elements that have no "role"; Responses
//                                                      reasoning items are left out)
//   message  := RS role US content (SUB attr US value)*    attrs, if present and not null, in the order
//               name, tool_call_id, tool_calls, function_call
//   content  := nothing (absent or null) | text (string) | part (GS part)* (array) | json (other);
//               thinking and redacted_thinking parts are left out with their GS
//   part     := text                                  type text|input_text|output_text, or a bare string
//             | type US field (US field)*             image_url: url | input_image: image_url, file_id
//                                                      image: source.data, source.url, source.file_id
//                                                      input_audio: data | file: file_id, file_data, filename
//                                                      input_file: file_id, file_data, filename
//             | US json                               any other part
//   text     := the decoded string; decoded bytes 0x1A..0x1F are written as ESC, byte + 0x40
//   json     := the value re-emitted minified: no whitespace, keys in given order, strings escaped in one
//               canonical way (CANONICAL_ESCAPES: \u00e9 and é, \/ and / alike), numbers as written; members
//               named cache_control are left out at any depth (prompt-caching breakpoints, which clients move to
//               the newest message every turn)
//   value, role, attr values, fields: text if a string, json otherwise; missing fields are empty.
// Raw JSON strings cannot contain bytes below 0x20, so separators in the stream are always structural.

export const SUB: u8 = 0x1a; // starts a message attribute
export const ESC: u8 = 0x1b; // escapes a decoded 0x1A..0x1F byte inside text
export const FS: u8 = 0x1c; // starts a structural record
export const GS: u8 = 0x1d; // separates content parts and prompt strings
export const RS: u8 = 0x1e; // starts a message record
export const US: u8 = 0x1f; // separates a head from its body
