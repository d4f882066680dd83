import { homedir } from 'node:os';
import { join } from 'node:path';
import { COMMON_DEFAULTS } from '../bridge/bridge-options.js';
import { svcDialect } from '../bridge/svc/svc-dialect.js';

// What svc-terminal and each of its commands say to --help.

/** Where the bridge keeps its state unless --state says otherwise (XDG's state directory). */
export const DEFAULT_STATE_DIR = join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'svc-terminal');

export const usage = {
  main: `usage: svc-terminal <command> [options]

commands:
  emulate   an emulated POS device on a serial line (operator commands on stdin)
  bridge    drive one device for one terminal: orders to the device, records to the server
  held      records the bridge holds for an operator's decision, and the decisions
  retry     send a sale the POS declined again (Transbank: the cashier's "try another card")
  close     a batch close for the running bridge of a terminal (instead of typing close)
  control   an operator command to a running emulator or bridge started with --control
  ports     list the serial ports of this machine
  play      play a serial transcript as the cash register, checking the POS's answers byte for byte
  zvt       send one ZVT command as a cash register (pay, preauth, book, reverse, end-of-day …) and print the answers

svc-terminal <command> --help says more. Lines, by dialect (--dialect):
  svc, transbank   serial, 115200 8N1 unless --baud
  zvt              serial 9600 8N2 unless --baud, or TCP (port 20007)
  nexo             HTTPS (port 8443), Adyen's payload encryption
Durations take their unit: 200ms, 5s, 2m (the old --…-ms spellings still
work, with a warning); --state is where a command keeps what survives a
restart (--state-dir still works, with a warning).
`,
  play: `usage: svc-terminal play (--path PATH | --host HOST:PORT [--ca FILE] | --emulated) [--baud N] [--timeout DURATION] TRANSCRIPT…

Plays each transcript as the cash register, and checks what the terminal
sends back byte for byte:

  Transbank (fixtures/serial/transbank/*.json) on the serial line PATH:
  sends each H→T frame as written, checks its ACK and each T→H frame,
  ACKing each frame.
  ZVT (fixtures/serial/zvt/*.json) on the serial line PATH (9600 8N2: the
  APDUs framed, stuffed and ACKed) or over TCP to HOST:PORT (bare APDUs):
  sends each H→T APDU, checks each T→H APDU.
  nexo (fixtures/nexo/transcripts/*.json) over HTTPS to HOST[:8443]
  (--ca: the root the terminal's certificate chains to), in plaintext as a
  test terminal takes it: posts each request, checks each response body
  field for field.

The first difference ends the play, saying where, what was expected and
what came. Against svc-terminal emulate, start it as the transcript's
"device" says (printed before the play): --seed and --clock make its
answers repeat, and a fresh terminal for each transcript. --emulated does
that for you: each transcript is played against an emulated terminal
started afresh, in this process, as its "device" says (nothing to start,
no serial port; the check a firmware or cash-register team runs first).

  --timeout D      how long to wait for each answer (default 5s)

Exit status: 0 every transcript matched, 1 one differed, 2 a usage error,
3 nothing answers at --host.
`,
  emulate: `usage: svc-terminal emulate --path PATH --serial SN [--dialect svc|transbank] [--state FILE] [--auto-approve DURATION] [--baud N] [fault options] [--debug]
       svc-terminal emulate --dialect zvt|nexo … (below)

An emulated POS device on the serial line PATH (a real port or one end of a
pseudo-terminal pair). It answers the host (INTERFACE.md §9) and keeps every
record until the host confirms it. Charges and voids are approved after
--auto-approve, or by you on stdin: approve [orderId], decline [orderId],
void [orderId], close (the batch), status.

  --state FILE        the device's journal, as a real terminal keeps one in
                      flash: unconfirmed records, the batch number and the
                      orders it approved survive a restart (written before
                      every answer). Without it, everything is in memory.
                      A charge asked for an order already approved is
                      refused with rc 94, never approved twice.


  --control SOCKET    operator commands also through svc-terminal control
                      SOCKET: a process started in the background never
                      reads the terminal (the shell would stop it)
  --seed N, --clock ISO  transbank, zvt, nexo: see each dialect below

fault options (for tests and demos, svc, transbank, zvt):
  --corrupt-frame N   corrupt the LRC of the Nth frame sent
  --drop-ack N        do not send the Nth ACK
  --split-gap D       send every frame in two halves D apart
  --delay D           hold every write D
  --silent-after N    stop sending after the Nth frame
`,
  bridge: `usage: svc-terminal bridge --path PATH --base-url URL --serial SN [--dialect svc|transbank] [--secret-file FILE] [options]
       svc-terminal bridge --dialect zvt|nexo … --base-url URL --serial SN [options] (below)

Drives the device on PATH for terminal SN: asks it to charge the server's
PENDING orders and to void its VOID_PENDING ones, sends every record it
holds to the server (signed with the terminal's secret), and confirms a
record to the device only once the server holds that same record. A record
the server holds differently (a conflicting batch, a second charge) is held
under --state, left on the device, and reported: see svc-terminal held.

The terminal's secret (64 hex characters, shown at provisioning) comes from
--secret-file FILE or SVC_TERMINAL_SECRET; --secret HEX works, with a
warning, since every local user can read it in ps.

  --state DIR             what must survive a restart: the orders asked (a
                          restarted bridge never asks twice) and held records
                          (default ${DEFAULT_STATE_DIR})
  --poll D                pause between two cycles (default ${COMMON_DEFAULTS.pollMs}ms)
  --answer-timeout D      how long to wait for the device's answer to one
                          request; a device slower than this is a dead line
                          (default ${svcDialect.answerTimeoutMs}ms)
  --close-at HH:MM        close the batch from the host (0500) every day at
                          this local time; typing "close" on stdin does it now,
                          and so does svc-terminal close --serial SN (for a
                          bridge in the background, which never reads the
                          terminal)
  --control SOCKET        operator commands also through svc-terminal control
  --baud N                line speed (default 115200, 8N1)
  --debug                 frames in hex and link events

The serial line and the server fail separately: a silent device or a pulled
cable reopens the line (0.5 s doubling to 10 s); a server that is down or
answers 5xx leaves the line open and polled and is tried again (1 s doubling
to 30 s). Each change of state is one log line.
`,
  held: `usage: svc-terminal held --serial SN [--state DIR]
       svc-terminal held --serial SN [--state DIR] resend KEY
       svc-terminal held --serial SN [--state DIR] discard KEY --reason TEXT

Records the bridge holds for terminal SN because the server holds something
different in their place (a batch number reused with other fields, a second
charge of an order). Each stays on the device, unconfirmed, and the device's
later records wait behind it, until you decide:

  resend KEY      after fixing the cause (on the server, or on the device):
                  the bridge sends the record again at its next cycle
  discard KEY     the record is not wanted (say why with --reason): the
                  bridge confirms it to the device, which deletes it; the
                  decision is kept in <state>/<serial>/released.jsonl

A running bridge carries the decision out at its next cycle.
`,
  retry: `usage: svc-terminal retry ORDER --serial SN [--state DIR]

A sale the Transbank POS declined stays PENDING on the server and is not
sent to the POS again by itself (the customer may have walked away). When
the cashier wants to try again (another card), this sends it: the running
bridge for terminal SN (the same --state) takes it at its next cycle.
`,
  close: `usage: svc-terminal close --serial SN [--state DIR]

Journals a batch close for terminal SN: its running bridge (the same
--state) carries it out at its next cycle, as typing "close" on its stdin
does. For a bridge started in the background, or as a service.
`,
  control: `usage: svc-terminal control SOCKET COMMAND…

Sends one operator command to an emulator or a bridge started with
--control SOCKET, and prints its answer: what typing the command on its
stdin does, for one started in the background (a process in the
background never reads the terminal). The emulators' commands: status,
help and the dialect's own (approve, decline, next …); the bridge's: close.

Exit status: 0 answered, 2 a usage error, 3 nothing answers on SOCKET.
`,
  ports: `usage: svc-terminal ports

Lists the serial ports this machine has (path, manufacturer, serial number).
`,
};
