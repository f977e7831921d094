import { section } from './entry';
import { arr, int, num, obj, opt, str } from './fields';
import {
  C8Fields,
  InkAction,
  InkConversation,
  InkFailureData,
  InkMessage,
  InkMessageContent,
  InkMessageWithVendor,
} from './shared';

const entry = section('Communications and conversation events');

const transcription = {
  account_number: str(),
  call_id: int(),
  call_key: str(),
  transcript_key: str(),
  redacted_transcript_key: str(),
  bucket: str(),
};
const uploadedFile = { file_reference: str() };
const bucketAssignment = {
  conversation_relay_id: str(),
  bucket_relay_id: str(),
  support_user_id: int(),
  organisation_id: int(),
  actor_type: str(),
  actor_id: int(),
};
const timelineAssignment = { conversation_relay_id: str(), timeline_relay_id: str(), support_user_id: int() };
const liveChat = { live_chat_conversation: InkConversation };
const attachmentScan = { filename: str(), store_key: str(), store_bucket: str(), size_in_bytes: int() };
const conversationMessage = { conversation_relay_id: str(), account_number: str(), message: InkMessage };

export const COMMS_EVENTS = [
  entry('comms.account-call.updated', 'v1', { ...transcription, changes: obj() }),
  entry('comms.transcription.created', 'v1', transcription),
  entry('comms.customer_email_bounced', 'v1', {
    account_number: str(),
    user_id: int(),
    message_id: int(),
    template_code: str(),
    bounced_at: str(),
  }, {
    description:
      'Communications and conversation events: comms.customer_email_bounced, payload v1. Published by the data-import service when a customer ' +
      'e-mail of a migration gets a permanent SMTP answer (5xx to RCPT TO or DATA): message_id is the id of the e-mail (customer_email_queue.id, ' +
      '`data-import emails list`), user_id the account user, template_code e.g. migration_welcome, bounced_at an ISO 8601 time. One event per ' +
      'bounce: the same bounce recorded twice keeps its event id (docs/customer-emails.md).',
    example: { account_number: 'A-0FFE3B2E', user_id: 1042, message_id: 7, template_code: 'migration_welcome', bounced_at: '2026-11-21T09:30:00.000Z' },
  }),
  entry('comms.push-notification.received-unregistered-or-expired-token', 'v1', { push_notification_binding_id: int() }),
  entry('messaging.push-notification.token-unregistered', 'v1', { token: str(), external_provider: str() }),
  entry('external_messaging.uploaded_file.safe', 'v1', uploadedFile),
  entry('external_messaging.uploaded_file.unsafe', 'v1', uploadedFile),
  entry('ink.actions.run', 'v1', {
    conversation_relay_id: str(),
    message_relay_id: str(),
    actions_results: arr(InkAction),
  }),
  entry('ink.content.inbound-message-tagged', 'v1', {
    conversation_id: int(),
    conversation_relay_id: str(),
    account_number: str(),
    message: InkMessageContent,
  }),
  entry('ink.conversation.assigned_to_bucket', 'v1', bucketAssignment),
  entry('ink.conversation.unassigned_from_bucket', 'v1', bucketAssignment),
  entry('ink.conversation.assigned_to_timeline', 'v1', timelineAssignment),
  entry('ink.conversation.unassigned_from_timeline', 'v1', timelineAssignment),
  entry('ink.conversation.await_customer_reply', 'v1', C8Fields),
  entry('ink.conversation.opened', 'v1', C8Fields),
  entry('ink.conversation.closed', 'v1', { ...C8Fields, closed_at: str(), reason: str() }),
  entry('ink.conversation.open_status_changed', 'v1', { ...C8Fields, new_status: str(), previous_status: str() }),
  entry('ink.conversation.snoozed', 'v1', { ...C8Fields, snoozed_to: str(), ink_note_relay_id: str() }),
  entry('ink.conversation.priority.changed', 'v1', {
    conversation_id: int(),
    conversation_relay_id: str(),
    old_priority: num(),
    new_priority: num(),
    prioritized_at: str(),
    message_id: int(),
    message_relay_id: str(),
    account_number: str(),
    latest_contacted_account_user_number: str(),
    support_user_id: int(),
    organisation_id: int(),
  }),
  entry('ink.live-chat.closed', 'v1', {
    live_chat_conversation_relay_id: str(),
    close_reason: str(),
    account_number: opt(str()),
  }),
  entry('ink.live-chat.initiated', 'v1', liveChat),
  entry('ink.live-chat.messages.outbound-message-created', 'v1', liveChat),
  entry('ink.message_attachment.safe', 'v1', attachmentScan),
  entry('ink.message_attachment.unsafe', 'v1', attachmentScan),
  entry('ink.messages.inbound-email-migration', 'v1', { message_id: str(), store_key: str(), store_bucket: str() }),
  entry('ink.messages.inbound-message-created', 'v1', conversationMessage),
  entry('ink.messages.outbound-message-created', 'v1', conversationMessage),
  entry('ink.messages.phishing-report-dismissed', 'v1', conversationMessage),
  entry('ink.messages.reported-phishing', 'v1', conversationMessage),
  entry('ink.messages.reported-spam', 'v1', conversationMessage),
  entry('ink.messages.spam-report-dismissed', 'v1', conversationMessage),
  entry('ink.messages.inbound-message-ingested', 'v1', {
    channel: str(),
    vendor: str(),
    vendor_id: str(),
    message_relay_id: str(),
  }),
  entry('ink.messages.outbound-message-failed', 'v1', {
    conversation_relay_id: str(),
    message: InkMessageWithVendor,
    failure: InkFailureData,
  }),
] as const;
