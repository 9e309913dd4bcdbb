//! Chapter 5's planted mistakes (written with the chapter).
