// The ASCII control bytes the serial link layers frame with: the svc and
// Transbank frame (STX … ETX LRC) and ZVT's (DLE STX … DLE ETX CRC) share them.

export const STX = 0x02;
export const ETX = 0x03;
export const ACK = 0x06;
export const NAK = 0x15;
