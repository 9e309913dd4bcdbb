//! Chapter 7's planted mistakes (written with the chapter).
