// The commands of imapd, one file each under imapd/commands/, and the capability list they
// share. Each function returns the command's entry for the CommandTable; command_table.cc
// lists them all, so adding a command means one new file and one line there.
//
// Ownership: specs are plain values. Thread-safety: the functions are pure.
#pragma once

#include <string>

#include "imapd/command_table.h"

namespace darius::imapd {

class Session;

// Not-authenticated and any-state commands (RFC 9051 §6.1, §6.2) and extensions.
CommandSpec capabilityCommand();    // capability.cc, RFC 9051 §6.1.1
CommandSpec noopCommand();          // noop.cc, RFC 9051 §6.1.2
CommandSpec logoutCommand();        // logout.cc, RFC 9051 §6.1.3
CommandSpec starttlsCommand();      // starttls.cc, RFC 9051 §6.2.1, RFC 8314
CommandSpec authenticateCommand();  // authenticate.cc, RFC 9051 §6.2.2, RFC 4959
CommandSpec loginCommand();         // login.cc, RFC 9051 §6.2.3
CommandSpec idCommand();            // id.cc, RFC 2971
CommandSpec enableCommand();        // enable.cc, RFC 5161, RFC 9051 §6.3.1

// Authenticated state (RFC 9051 §6.3).
CommandSpec selectCommand();       // select.cc, RFC 9051 §6.3.2, RFC 7162
CommandSpec examineCommand();      // select.cc, RFC 9051 §6.3.3
CommandSpec createCommand();       // create.cc, RFC 9051 §6.3.4, RFC 6154
CommandSpec deleteCommand();       // delete.cc, RFC 9051 §6.3.5
CommandSpec renameCommand();       // rename.cc, RFC 9051 §6.3.6
CommandSpec subscribeCommand();    // subscribe.cc, RFC 9051 §6.3.7
CommandSpec unsubscribeCommand();  // subscribe.cc, RFC 9051 §6.3.8
CommandSpec namespaceCommand();    // namespace.cc, RFC 9051 §6.3.10, RFC 2342
CommandSpec listCommand();  CommandSpec lsubCommand();  // list.cc, lsub.cc, RFC 9051 §6.3.9
CommandSpec statusCommand();       // status.cc, RFC 9051 §6.3.11
CommandSpec appendCommand();       // append.cc, RFC 9051 §6.3.12, RFC 3502, RFC 4315
CommandSpec idleCommand();         // idle.cc, RFC 9051 §6.3.13, RFC 2177
// Quotas (RFC 9208 §4.1).
CommandSpec getquotaCommand();      // getquota.cc, RFC 9208 §4.1.1
CommandSpec getquotarootCommand();  // getquotaroot.cc, RFC 9208 §4.1.2
CommandSpec setquotaCommand();      // setquota.cc, RFC 9208 §4.1.3
// Access control (RFC 4314 §3).
CommandSpec setaclCommand();      // setacl.cc, RFC 4314 §3.1
CommandSpec deleteaclCommand();   // deleteacl.cc, RFC 4314 §3.2
CommandSpec getaclCommand();      // getacl.cc, RFC 4314 §3.3
CommandSpec listrightsCommand();  // listrights.cc, RFC 4314 §3.4
CommandSpec myrightsCommand();    // myrights.cc, RFC 4314 §3.5

// Selected state (RFC 9051 §6.4).
CommandSpec closeCommand();     // close.cc, RFC 9051 §6.4.1
CommandSpec unselectCommand();  // close.cc, RFC 9051 §6.4.2, RFC 3691
CommandSpec checkCommand();     // check.cc, RFC 3501 §6.4.1
CommandSpec expungeCommand();   // expunge.cc, RFC 9051 §6.4.3
CommandSpec searchCommand();    // search.cc, RFC 9051 §6.4.4, RFC 4731, RFC 5182, RFC 7162,
                                // RFC 5032, RFC 5267, RFC 9394
CommandSpec sortCommand();      // sort.cc, RFC 5256 §3, RFC 5267 §3 (ESORT), RFC 5957
CommandSpec cancelupdateCommand();  // cancelupdate.cc, RFC 5267 §4.3.5
CommandSpec storeCommand();     // store.cc, RFC 9051 §6.4.6, RFC 7162
CommandSpec fetchCommand();     // fetch.cc, RFC 9051 §6.4.5, RFC 3516, RFC 7162, RFC 8970
CommandSpec copyCommand();      // copy.cc, RFC 9051 §6.4.7, RFC 4315
CommandSpec moveCommand();      // copy.cc, RFC 9051 §6.4.8, RFC 6851
CommandSpec uidCommand();       // uid.cc, RFC 9051 §6.4.9
CommandSpec threadCommand();    // thread.cc, RFC 5256 §3, draft-ietf-morg-inthread (REFS)

// The UID forms, dispatched by uid.cc; each lives in its command's file.
base::Result<std::unique_ptr<PreparedCommand>> parseUidCopy(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidMove(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidExpunge(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidStore(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidSearch(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidSort(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidFetch(ArgParser& p);
base::Result<std::unique_ptr<PreparedCommand>> parseUidThread(ArgParser& p);

// The capabilities every session has, whatever its state; APPENDLIMIT=<n> (from the config)
// and the state-dependent ones follow them in capabilityList().
// LITERAL+ only: it accepts every non-synchronizing literal LITERAL- would (RFC 7888 §5 says
// a server MUST NOT advertise both; IMAP4rev2 clients may assume LITERAL- anyway).
inline constexpr std::string_view kStaticCapabilities =
    "IMAP4rev2 IMAP4rev1 SASL-IR LITERAL+ ID ENABLE IDLE NAMESPACE UIDPLUS MOVE UNSELECT "
    "CHILDREN CONDSTORE QRESYNC MULTIAPPEND BINARY STATUS=SIZE SPECIAL-USE CREATE-SPECIAL-USE "
    "SAVEDATE OBJECTID LIST-EXTENDED LIST-STATUS ESEARCH SEARCHRES WITHIN PARTIAL "
    "CONTEXT=SEARCH CONTEXT=SORT PREVIEW SORT SORT=DISPLAY ESORT "
    "ACL RIGHTS=texk LIST-MYRIGHTS "
    "QUOTA QUOTA=RES-STORAGE QUOTA=RES-MESSAGE QUOTA=RES-MAILBOX QUOTASET "
    "THREAD=ORDEREDSUBJECT THREAD=REFERENCES THREAD=REFS";

// The capability list (without "CAPABILITY") for the session's current state: the untagged
// CAPABILITY response, the greeting and the tagged OK of LOGIN/AUTHENTICATE all use it.
// Defined in capability.cc.
std::string capabilityList(const Session& session);

}  // namespace darius::imapd
